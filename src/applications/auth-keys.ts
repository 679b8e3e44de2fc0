import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { decodeBase64Any, encodeBase64Url } from '../crypto/base64.js';
import { errors } from '../errors/catalogue.js';

/** A third party's public signing key as stored and shown: only the public members. */
export type PublicJwk = Record<string, string>;

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const RSA_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const EC_ALGORITHMS: Record<string, string[]> = { 'P-256': ['ES256'], 'P-384': ['ES384'], 'P-521': ['ES512'] };
/**
 * ECDSA with SHA-256 on secp256k1: JOSE names it ES256K, and the SDK's own platform test registers
 * such a key with `alg: "ES256"` (the hash it signs with); a token may say either.
 */
const SECP256K1_ALGORITHMS = ['ES256K', 'ES256'];
const EC_COORDINATE_BYTES: Record<string, number> = { 'P-256': 32, 'P-384': 48, 'P-521': 66, secp256k1: 32 };
/** Two names of one algorithm: RFC 8037's `EdDSA` and the fully-specified `Ed25519` (RFC 9864), which the SDK's tokens carry. */
const ED25519_ALGORITHMS = ['EdDSA', 'Ed25519'];
/** Sets of names of one signature computation: a key whose `alg` names one verifies them all. */
const SYNONYMS = [ED25519_ALGORITHMS, SECP256K1_ALGORITHMS];
const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 16384;
const MAX_KID_LENGTH = 255;

function fail(message: string): never {
  throw errors.validation(message);
}

function base64urlMember(jwk: Record<string, unknown>, name: string): Buffer {
  const value = jwk[name];
  if (typeof value !== 'string' || value === '' || !/^[A-Za-z0-9_-]+$/.test(value)) fail(`JWK member ${name} must be Base64URL`);
  return Buffer.from(value, 'base64url');
}

/**
 * A member the official SDK may send in standard Base64 (an Ed25519 `x` taken from a Java key):
 * either alphabet, padding optional. Its bytes; the member is stored as sent, since the SDK reads
 * the key back and compares `x` with what it sent.
 */
function anyBase64Member(jwk: Record<string, unknown>, name: string): Buffer {
  const value = jwk[name];
  const bytes = typeof value === 'string' && value !== '' ? decodeBase64Any(value) : null;
  if (bytes === null) fail(`JWK member ${name} must be Base64URL (or standard Base64)`);
  return bytes;
}

function bitLength(unsigned: Buffer): number {
  let start = 0;
  while (start < unsigned.length && unsigned[start] === 0) start += 1;
  if (start === unsigned.length) return 0;
  return (unsigned.length - start - 1) * 8 + (32 - Math.clz32(unsigned[start]!));
}

/** The JWS algorithms a key of this type may verify; `alg` in the JWK narrows them to one. */
export function algorithmsFor(jwk: PublicJwk): string[] {
  let allowed: string[];
  if (jwk.kty === 'RSA') allowed = RSA_ALGORITHMS;
  else if (jwk.kty === 'EC') allowed = jwk.crv === 'secp256k1' ? SECP256K1_ALGORITHMS : (EC_ALGORITHMS[jwk.crv ?? ''] ?? []);
  else if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') allowed = ED25519_ALGORITHMS;
  else allowed = [];
  if (!jwk.alg) return allowed;
  if (!allowed.includes(jwk.alg)) return [];
  return SYNONYMS.includes(allowed) ? allowed : [jwk.alg];
}

function publicMembers(jwk: Record<string, unknown>): PublicJwk {
  switch (jwk.kty) {
    case 'RSA': {
      const bits = bitLength(base64urlMember(jwk, 'n'));
      if (bits < MIN_RSA_BITS) fail(`RSA keys must have at least ${MIN_RSA_BITS} bits`);
      if (bits > MAX_RSA_BITS) fail(`RSA keys must have at most ${MAX_RSA_BITS} bits`);
      if (base64urlMember(jwk, 'e').length > 8) fail('RSA exponent too large');
      return { kty: 'RSA', n: jwk.n as string, e: jwk.e as string };
    }
    case 'EC': {
      const crv = typeof jwk.crv === 'string' ? jwk.crv : '';
      const size = EC_COORDINATE_BYTES[crv];
      if (!size) fail('EC keys must use curve P-256, P-384, P-521 or secp256k1');
      if (base64urlMember(jwk, 'x').length !== size || base64urlMember(jwk, 'y').length !== size) fail(`EC ${crv} coordinates must be ${size} bytes`);
      return { kty: 'EC', crv, x: jwk.x as string, y: jwk.y as string };
    }
    case 'OKP': {
      if (jwk.crv !== 'Ed25519') fail('OKP keys must use curve Ed25519');
      if (anyBase64Member(jwk, 'x').length !== 32) fail('Ed25519 public keys are 32 bytes');
      return { kty: 'OKP', crv: 'Ed25519', x: jwk.x as string };
    }
    default:
      return fail('kty must be RSA, EC or OKP (Ed25519)');
  }
}

/**
 * Checks a submitted auth key (decisions §6): a public JWK only (any private member is 400), RSA of
 * at least 2048 bits, EC P-256/384/521 or secp256k1, or Ed25519, with a kid. Returns the key
 * reduced to its public members plus kid, alg and use, so nothing else a client sent (the SDK's
 * `type` class name among them) is ever stored or echoed. `alg: null` and `use: null` mean absent.
 */
export function parseAuthKey(input: unknown): PublicJwk {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('body must be a JWK object');
  const jwk = input as Record<string, unknown>;
  if (PRIVATE_MEMBERS.some((member) => member in jwk && jwk[member] !== null)) fail('private key material is not accepted: send the public JWK only');
  const { kid } = jwk;
  const alg = jwk.alg ?? undefined;
  const use = jwk.use ?? undefined;
  if (typeof kid !== 'string' || kid.trim() === '' || kid.length > MAX_KID_LENGTH) fail(`kid is required (a string of at most ${MAX_KID_LENGTH} characters)`);
  if (use !== undefined && use !== 'sig') fail('use must be "sig" for an auth key');
  if (alg !== undefined && typeof alg !== 'string') fail('alg must be a string');
  const key: PublicJwk = { ...publicMembers(jwk), kid };
  if (alg !== undefined) key.alg = alg;
  if (use !== undefined) key.use = use;
  if (algorithmsFor(key).length === 0) fail(`alg ${String(alg)} does not fit a ${key.kty} key`);
  importPublicKey(key);
  return key;
}

/**
 * The KeyObject for a stored public JWK; 400 when the numbers do not make a valid key (e.g. a point
 * off the curve). An OKP `x` kept as the SDK sent it (standard Base64) is read as its bytes.
 */
export function importPublicKey(jwk: PublicJwk): KeyObject {
  const { kid: _kid, alg: _alg, use: _use, ...material } = jwk;
  if (material.kty === 'OKP' && material.x !== undefined) material.x = encodeBase64Url(decodeBase64Any(material.x) ?? Buffer.alloc(0));
  try {
    return createPublicKey({ key: material as JsonWebKey, format: 'jwk' });
  } catch {
    return fail('the JWK is not a valid public key');
  }
}
