import { decodeOperationToken as decodeSignedOperation, type DecodedOperationToken } from '../crypto/operation-token.js';
import { errors } from '../errors/catalogue.js';

/**
 * The first steps of a signed operation: the execute body (decisions §1), the compact JWT itself,
 * sent as application/jwt, text/plain or application/json (compat: the spec's clients send the
 * bare token with a JSON content type; some quote it as a JSON string; Fastify hands these
 * functions the raw body), and its decoding. Locks decode the tokens they are sent the same way
 * (src/lock-edge/command-check.ts).
 */

/** Largest execute body accepted (decisions §1 input bounds). */
export const MAX_EXECUTE_BODY_BYTES = 16 * 1024;

/** Three dot-separated segments of Base64 characters (either alphabet, padding allowed). */
const COMPACT_JWS = /^[A-Za-z0-9+/_=-]*\.[A-Za-z0-9+/_=-]*\.[A-Za-z0-9+/_=-]*$/;

type BodyKind = 'raw' | 'json';

/** How to read a body of this content type; absent means raw. Null for types we refuse. */
function bodyKind(contentType: string | undefined): BodyKind | null {
  if (contentType === undefined || contentType.trim() === '') return 'raw';
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (mediaType === 'application/jwt' || mediaType === 'text/plain') return 'raw';
  if (mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) return 'json';
  return null;
}

function unquote(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw errors.badRequest('execute body must be a compact JWT or a JSON string holding one');
  }
  if (typeof value !== 'string') throw errors.badRequest('execute body must be a compact JWT or a JSON string holding one');
  return value.trim();
}

/**
 * The compact JWS carried by an execute body: trimmed, unquoted when sent as a JSON string, at
 * most 16 KiB, exactly three dot-separated segments of Base64 characters. 415 for other content types,
 * 400 for anything else that is wrong. The segments themselves are checked by decodeOperationToken.
 */
export function extractCompactJws(rawBody: Buffer | string, contentType: string | undefined): string {
  const kind = bodyKind(contentType);
  if (kind === null) throw errors.unsupportedMediaType();
  const size = typeof rawBody === 'string' ? Buffer.byteLength(rawBody, 'utf8') : rawBody.length;
  if (size > MAX_EXECUTE_BODY_BYTES) throw errors.badRequest(`execute body must be at most ${MAX_EXECUTE_BODY_BYTES} bytes`);
  let text = (typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8')).trim();
  if (kind === 'json' && text.startsWith('"')) text = unquote(text);
  // An empty signature is left to decodeOperationToken, so that alg "none" is refused as a 401.
  if (!COMPACT_JWS.test(text)) throw errors.badRequest('execute body must be a compact JWT (header.payload.signature)');
  return text;
}

/**
 * Decodes a compact JWS no longer than an execute body may be (crypto/operation-token.ts): 400
 * when it cannot be decoded, 401 for an algorithm other than RS256 or EdDSA, a `typ` other than
 * JWT or an empty signature.
 */
export function decodeOperationToken(compact: string): DecodedOperationToken {
  return decodeSignedOperation(compact, MAX_EXECUTE_BODY_BYTES);
}
