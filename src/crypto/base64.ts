/**
 * Base64 as clients really send it (decisions §1, compat): the standard or the URL alphabet, with
 * or without `=` padding. Node's own decoder silently skips characters it does not know, which
 * would let two different strings decode to the same bytes; this one refuses anything that is not
 * Base64, so a value is accepted only when it means exactly one thing.
 */

const BASE64_ANY = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Bytes of `text` (either alphabet, padding optional), or null when it is not Base64. */
export function decodeBase64Any(text: string): Buffer | null {
  if (!BASE64_ANY.test(text)) return null;
  const unpadded = text.replace(/=+$/, '');
  const padding = text.length - unpadded.length;
  if (unpadded.length % 4 === 1) return null;
  if (padding > 0 && text.length % 4 !== 0) return null;
  // Node's base64 decoder reads both alphabets (mixed too), and the pattern above admitted only those.
  return Buffer.from(unpadded, 'base64');
}

/** Base64URL without padding, the JOSE form. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}
