import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { errors } from '../errors/catalogue.js';
import { decodeBase64Any, encodeBase64Url } from './base64.js';

/**
 * Ed25519 public keys as clients send them (POST /auth/certificate `ephemeralKey`): Base64 of the
 * raw 32-byte key or of the DER SubjectPublicKeyInfo (RFC 8410), and signatures made with them.
 */

/** DER SubjectPublicKeyInfo header of an Ed25519 key (RFC 8410 §4: no parameters); the key follows. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const RAW_LENGTH = 32;
const SIGNATURE_LENGTH = 64;

/**
 * Encodings of points of order 1, 2, 4 and 8 (libsodium's blocklist, compared without the sign
 * bit). Such a "key" has no secret behind it and lets anyone produce signatures that verify, so
 * it is refused up front rather than certified.
 */
const SMALL_ORDER_POINTS = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
].map((hex) => Buffer.from(hex, 'hex'));

function hasSmallOrder(raw: Buffer): boolean {
  const unsigned = Buffer.from(raw);
  unsigned[31] = unsigned[31]! & 0x7f;
  return SMALL_ORDER_POINTS.some((point) => point.equals(unsigned));
}

function notEd25519(): Error {
  return errors.badRequest('ephemeralKey must be an Ed25519 public key');
}

/** The 32 key bytes of a raw or RFC 8410 DER encoding, or null for anything else. */
function rawKeyBytes(bytes: Buffer): Buffer | null {
  if (bytes.length === RAW_LENGTH) return bytes;
  if (bytes.length === SPKI_PREFIX.length + RAW_LENGTH && bytes.subarray(0, SPKI_PREFIX.length).equals(SPKI_PREFIX)) {
    return bytes.subarray(SPKI_PREFIX.length);
  }
  return null;
}

/** The raw key inside an Ed25519 DER SubjectPublicKeyInfo, or null when `spki` is not exactly one. */
export function ed25519RawFromSpki(spki: Buffer): Buffer | null {
  return spki.length === SPKI_PREFIX.length + RAW_LENGTH ? rawKeyBytes(spki) : null;
}

/**
 * An Ed25519 public key from raw 32 bytes. Imported as a JWK: OpenSSL 3 takes about ten times
 * longer to decode the same key from DER, which matters on the unlock path.
 */
export function ed25519KeyFromRaw(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: encodeBase64Url(raw) }, format: 'jwk' });
}

/**
 * Parses Base64 (standard or URL alphabet, padding optional, line breaks ignored) of a raw
 * 32-byte Ed25519 key or its DER SubjectPublicKeyInfo. Anything else (RSA or EC keys, other
 * lengths, small-order points, not Base64) throws a 400 `ephemeralKey must be an Ed25519 public key`.
 */
export function parseEd25519PublicKey(base64: string): KeyObject {
  if (typeof base64 !== 'string' || base64.length > 1024) throw notEd25519();
  const bytes = decodeBase64Any(base64.replace(/\s+/g, ''));
  const raw = bytes === null ? null : rawKeyBytes(bytes);
  if (raw === null || hasSmallOrder(raw)) throw notEd25519();
  return ed25519KeyFromRaw(raw);
}

/** The raw 32 bytes of an Ed25519 public key; throws on any other key type. */
export function ed25519RawFromKey(key: KeyObject): Buffer {
  if (key.type !== 'public' || key.asymmetricKeyType !== 'ed25519') throw new TypeError('not an Ed25519 public key');
  const spki = key.export({ format: 'der', type: 'spki' });
  return spki.subarray(spki.length - RAW_LENGTH);
}

/** True when `signature` is a valid Ed25519 signature of `data` by `key`; never throws. */
export function verifyEd25519(key: KeyObject, data: Uint8Array, signature: Uint8Array): boolean {
  if (key.asymmetricKeyType !== 'ed25519' || signature.length !== SIGNATURE_LENGTH) return false;
  try {
    return verify(null, data, key, signature);
  } catch {
    return false;
  }
}
