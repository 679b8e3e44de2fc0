import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { errors, isAppError, type AppError } from '../errors/catalogue.js';
import { decodeBase64Any } from './base64.js';
import { verifyCertificateChain, type TrustedRoot, type VerifiedLeaf } from './chain.js';
import { verifyEd25519 } from './ed25519.js';

/**
 * Signed operations (decisions §4): decoding the compact JWS an execute request carries and
 * checking its signature. Used by the execute endpoint and by locks (defence in depth), so it
 * needs no database: the caller supplies the size limit, the user's legacy key and the trusted root.
 *
 * Only RS256 (the user's legacy RSA key) and EdDSA (an ephemeral Ed25519 key certified by our
 * CA through `x5c`) are accepted. Key-locating headers (`jwk`, `jku`, `kid`, `x5u`) are ignored:
 * a key is never taken from the token itself except through a chain that ends at our root.
 */

export const OPERATION_ALGORITHMS = ['RS256', 'EdDSA'] as const;
export type OperationAlgorithm = (typeof OPERATION_ALGORITHMS)[number];

export interface OperationTokenHeader {
  alg: OperationAlgorithm;
  typ?: string;
  x5c?: unknown;
  [name: string]: unknown;
}

export interface DecodedOperationToken {
  header: OperationTokenHeader;
  /** The payload as sent; checkOperationClaims validates it. */
  payload: Record<string, unknown>;
  /** The exact bytes before the second period: what the signature covers. */
  signingInput: Buffer;
  signature: Buffer;
}

/** Who signed a verified token, and with which key. */
export interface VerifiedSigner {
  alg: OperationAlgorithm;
  userId: string;
  publicKey: KeyObject;
}

const MIN_RSA_BITS = 2048;

const malformed = () => errors.badRequest('operation token is malformed');

function decodeSegment(segment: string): Buffer {
  const bytes = decodeBase64Any(segment);
  if (bytes === null) throw malformed();
  return bytes;
}

/** Refuses bytes that are not UTF-8. Stateless between calls (no `stream` option), so one serves every token. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeJsonObject(segment: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(decodeSegment(segment)));
  } catch {
    throw malformed();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw malformed();
  return value as Record<string, unknown>;
}

function checkHeader(header: Record<string, unknown>): OperationTokenHeader {
  if (!(OPERATION_ALGORITHMS as readonly unknown[]).includes(header.alg)) throw errors.badSignature('signature algorithm must be RS256 or EdDSA');
  if (header.typ !== undefined && header.typ !== 'JWT' && header.typ !== 'jwt') throw errors.badSignature('token type must be JWT');
  // RFC 7515 §4.1.11: extensions we do not implement (b64=false among them) must be refused.
  if (header.crit !== undefined) throw errors.badSignature('critical header parameters are not supported');
  return header as OperationTokenHeader;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/**
 * Valid headers by their segment. A user's tokens all carry the same header (alg, typ and the
 * x5c chain, a kilobyte or more of Base64) for as long as their certificate lives, and decoding
 * it cost more than the rest of the token. Frozen, since every token with that header shares the
 * object (and chain.ts then recognises the frozen x5c). Bounded.
 *
 * Keyed by the segment's first characters, which reach into the leaf certificate's random serial
 * number: hashing the whole segment (a new string on every request) cost more than the rest of
 * the decoding (docs/decisions.md, Performance). A hit must still equal the whole segment, so
 * two headers that share a beginning only miss.
 */
const knownHeaders = new LRUCache<string, { segment: string; header: OperationTokenHeader }>({ max: 1024 });
const HEADER_KEY_LENGTH = 256;

function decodeHeader(segment: string): OperationTokenHeader {
  const key = segment.slice(0, HEADER_KEY_LENGTH);
  const known = knownHeaders.get(key);
  if (known !== undefined && known.segment === segment) return known.header;
  const header = deepFreeze(checkHeader(decodeJsonObject(segment)));
  knownHeaders.set(key, { segment, header });
  return header;
}

/**
 * Splits and decodes a compact JWS of at most `maxLength` characters. Segments may use Base64URL
 * or standard Base64, with or without padding (compat). 400 when it cannot be decoded; 401 for an
 * algorithm other than RS256 or EdDSA (none and HS256 included), a `typ` other than JWT/jwt,
 * `crit`, or an empty signature. The header is frozen (shared between tokens that carry the same one).
 */
export function decodeOperationToken(compact: string, maxLength: number): DecodedOperationToken {
  if (compact.length > maxLength) throw malformed();
  const segments = compact.split('.');
  if (segments.length !== 3 || segments[0] === '' || segments[1] === '') throw malformed();
  const [headerSegment, payloadSegment, signatureSegment] = segments as [string, string, string];
  const header = decodeHeader(headerSegment);
  const payload = decodeJsonObject(payloadSegment);
  const signature = decodeSegment(signatureSegment);
  if (signature.length === 0) throw errors.badSignature();
  // Both segments decoded as Base64, so they are ASCII: latin1 gives the same bytes as UTF-8, sooner.
  const signingInput = Buffer.from(compact.slice(0, headerSegment.length + 1 + payloadSegment.length), 'latin1');
  return { header, payload, signingInput, signature };
}

/** Ids (users, locks) are UUIDs, which compare without regard to case. */
export function sameId(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function verifyRs256(decoded: DecodedOperationToken, key: KeyObject | undefined): KeyObject | AppError {
  if (key === undefined) return errors.badSignature('no RS256 key is registered for this user');
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (key.type !== 'public' || key.asymmetricKeyType !== 'rsa' || bits < MIN_RSA_BITS) return errors.badSignature('user key cannot verify RS256');
  let valid = false;
  try {
    valid = verify('sha256', decoded.signingInput, { key, padding: constants.RSA_PKCS1_PADDING }, decoded.signature);
  } catch {
    valid = false;
  }
  return valid ? key : errors.badSignature();
}

async function verifyEdDsa(decoded: DecodedOperationToken, issuer: string, trustedRoot: TrustedRoot, now: number): Promise<KeyObject | AppError> {
  if (decoded.header.x5c === undefined) return errors.badSignature('EdDSA requires an x5c certificate chain');
  let leaf: VerifiedLeaf;
  try {
    leaf = await verifyCertificateChain(decoded.header.x5c, trustedRoot, now);
  } catch (err) {
    // The chain's every failure is its 401 (errors.badSignature, see verifyCertificateChain): the verdict on this token.
    if (isAppError(err)) return err;
    throw err;
  }
  if (!sameId(leaf.userId, issuer)) return errors.badSignature('certificate does not belong to iss');
  if (!verifyEd25519(leaf.publicKey, decoded.signingInput, decoded.signature)) return errors.badSignature();
  return leaf.publicKey;
}

/**
 * Checks the signature of a decoded token at `now` (Unix seconds). RS256: with
 * `legacyPublicKey`, the RSA key of the `iss` user (the caller looks it up). EdDSA: `x5c` must
 * be a valid chain to `trustedRoot` whose leaf names `iss`, and the leaf key must have signed the
 * exact bytes received. The signer, or the refusal as a value: every failure is a 401
 * (`errors.badSignature`). An `iss` that is not a string makes the request malformed: 400, thrown.
 */
export async function checkOperationSignature(
  decoded: DecodedOperationToken,
  options: { legacyPublicKey?: KeyObject | undefined; trustedRoot: TrustedRoot; now: number },
): Promise<VerifiedSigner | AppError> {
  const issuer = decoded.payload.iss;
  if (typeof issuer !== 'string' || issuer === '') throw errors.badRequest('iss must be the user id');
  const publicKey =
    decoded.header.alg === 'RS256'
      ? verifyRs256(decoded, options.legacyPublicKey)
      : await verifyEdDsa(decoded, issuer, options.trustedRoot, options.now);
  return isAppError(publicKey) ? publicKey : { alg: decoded.header.alg, userId: issuer, publicKey };
}

/** checkOperationSignature, throwing a refusal (401). */
export async function verifyOperationSignature(
  decoded: DecodedOperationToken,
  options: { legacyPublicKey?: KeyObject | undefined; trustedRoot: TrustedRoot; now: number },
): Promise<VerifiedSigner> {
  const signer = await checkOperationSignature(decoded, options);
  if (isAppError(signer)) throw signer;
  return signer;
}

/** A legacy public key as stored and sent (Base64 DER SubjectPublicKeyInfo), or null if unreadable. */
export function parseLegacyPublicKey(base64: string): KeyObject | null {
  const der = decodeBase64Any(base64.replace(/\s+/g, ''));
  if (der === null) return null;
  try {
    return createPublicKey({ key: der, format: 'der', type: 'spki' });
  } catch {
    return null;
  }
}

/** Reads a stored legacy public key (see parseLegacyPublicKey). */
export type LegacyKeyReader = (base64: string) => KeyObject | null;

/**
 * parseLegacyPublicKey behind a bounded LRU keyed by the Base64 text: importing an RSA SPKI costs
 * about five times the RS256 verification it serves, and a user's key never changes once set.
 * Only stored keys reach it, so callers cannot fill it with junk; unreadable keys are not kept.
 */
export function cachedLegacyKeyReader(max = 1024): LegacyKeyReader {
  const keys = new LRUCache<string, KeyObject>({ max });
  return (base64) => {
    const cached = keys.get(base64);
    if (cached !== undefined) return cached;
    const key = parseLegacyPublicKey(base64);
    if (key !== null) keys.set(base64, key);
    return key;
  };
}
