import { constants, verify, type KeyObject } from 'node:crypto';
import { decodeBase64Any } from './base64.js';

/**
 * Compact JWS signatures that jose cannot check: segments in standard (padded) Base64, as the
 * official SDK writes them, and ES256K (secp256k1), which WebCrypto lacks. The signature covers
 * the segments exactly as sent. Claims are not judged here.
 */

export interface DecodedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** The payload bytes as sent. */
  payloadBytes: Buffer;
}

type Check = { digest: string | null; options?: { padding?: number; saltLength?: number; dsaEncoding?: 'ieee-p1363' } };

const CHECKS: Record<string, Check> = {
  RS256: { digest: 'sha256' },
  RS384: { digest: 'sha384' },
  RS512: { digest: 'sha512' },
  PS256: { digest: 'sha256', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } },
  PS384: { digest: 'sha384', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 } },
  PS512: { digest: 'sha512', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 } },
  ES256: { digest: 'sha256', options: { dsaEncoding: 'ieee-p1363' } },
  ES384: { digest: 'sha384', options: { dsaEncoding: 'ieee-p1363' } },
  ES512: { digest: 'sha512', options: { dsaEncoding: 'ieee-p1363' } },
  ES256K: { digest: 'sha256', options: { dsaEncoding: 'ieee-p1363' } },
  EdDSA: { digest: null },
  Ed25519: { digest: null },
};

function jsonObject(bytes: Buffer | null): Record<string, unknown> | null {
  if (bytes === null) return null;
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Header and payload of a compact JWS (either Base64 alphabet, padding optional); null when malformed. */
export function decodeCompactJws(token: string): (DecodedJws & { signingInput: Buffer; signature: Buffer }) | null {
  const segments = token.split('.');
  if (segments.length !== 3) return null;
  const [headerText, payloadText, signatureText] = segments as [string, string, string];
  const header = jsonObject(decodeBase64Any(headerText));
  const payloadBytes = decodeBase64Any(payloadText);
  const payload = jsonObject(payloadBytes);
  const signature = decodeBase64Any(signatureText);
  if (header === null || payload === null || payloadBytes === null || signature === null || signature.length === 0) return null;
  return { header, payload, payloadBytes, signingInput: Buffer.from(`${headerText}.${payloadText}`, 'utf8'), signature };
}

/** True when `alg` names an algorithm this module checks. */
export function isCheckedAlgorithm(alg: unknown): alg is string {
  return typeof alg === 'string' && Object.hasOwn(CHECKS, alg);
}

/** Whether the decoded token's signature verifies with `key` under its header's `alg` (which the caller has allowed). */
export function verifyCompactSignature(decoded: { header: Record<string, unknown>; signingInput: Buffer; signature: Buffer }, key: KeyObject): boolean {
  const alg = decoded.header.alg;
  if (!isCheckedAlgorithm(alg)) return false;
  const check = CHECKS[alg]!;
  try {
    return verify(check.digest, decoded.signingInput, check.options ? { key, ...check.options } : key, decoded.signature);
  } catch {
    return false;
  }
}
