import { createPrivateKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';

/**
 * A small client for Latchkey's signed operations (node:crypto and fetch only), for scripts,
 * tests and the walkthrough: ephemeral Ed25519 keys, their certificates (with the secondary
 * check) and signed execute requests.
 */

export interface EphemeralKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Base64 of the raw 32-byte public key: what `ephemeralKey` carries. */
  publicKeyBase64: string;
}

export interface CertificateResult {
  certificateChain: string[];
  userId: string;
}

/** Answer of POST /auth/certificate when a secondary check is needed (423). */
export interface NeedsVerification {
  needsVerification: true;
}

export type VerificationMethod = 'EMAIL' | 'TELEPHONE' | 'SMS' | 'WHATSAPP';

/** A non-2xx answer: `status` and the service's `{code, message, error}` body. */
export class LatchkeyError extends Error {
  constructor(readonly status: number, readonly body: { code?: number; message?: string; error?: string } | undefined) {
    super(`Latchkey answered ${status}: ${body?.message ?? 'no message'}`);
    this.name = 'LatchkeyError';
  }
}

export function generateEphemeralKey(): EphemeralKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return { privateKey, publicKey, publicKeyBase64: spki.subarray(spki.length - 32).toString('base64') };
}

async function call(baseUrl: string, path: string, authToken: string, body: string | undefined, contentType = 'application/json'): Promise<Response> {
  return fetch(`${baseUrl.replace(/\/+$/, '')}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${authToken}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': contentType }) },
    body,
  });
}

async function failure(response: Response): Promise<LatchkeyError> {
  const text = await response.text();
  let body: LatchkeyError['body'];
  try {
    body = text ? (JSON.parse(text) as LatchkeyError['body']) : undefined;
  } catch {
    body = undefined;
  }
  return new LatchkeyError(response.status, body);
}

/** POST /auth/certificate: the chain, or `{needsVerification: true}` when the service answers 423. */
export async function requestCertificate(baseUrl: string, authToken: string, key: EphemeralKey): Promise<CertificateResult | NeedsVerification> {
  const response = await call(baseUrl, '/auth/certificate', authToken, JSON.stringify({ ephemeralKey: key.publicKeyBase64 }));
  if (response.status === 423) {
    await response.body?.cancel();
    return { needsVerification: true };
  }
  if (!response.ok) throw await failure(response);
  return (await response.json()) as CertificateResult;
}

/** POST /auth/certificate/verify: has a code sent (by `method`, or the service's choice). */
export async function verifyCertificate(baseUrl: string, authToken: string, key: EphemeralKey, method?: VerificationMethod): Promise<void> {
  const query = method === undefined ? '' : `?method=${method}`;
  const response = await call(baseUrl, `/auth/certificate/verify${query}`, authToken, JSON.stringify({ ephemeralKey: key.publicKeyBase64 }));
  if (!response.ok) throw await failure(response);
  await response.body?.cancel();
}

/** Signs the code with the ephemeral key, as POST /auth/certificate/check expects. */
export function signVerificationCode(key: EphemeralKey, code: string): string {
  return sign(null, Buffer.from(code.trim(), 'utf8'), key.privateKey).toString('base64');
}

/** POST /auth/certificate/check with the code received: the chain. */
export async function checkCertificate(baseUrl: string, authToken: string, key: EphemeralKey, code: string): Promise<CertificateResult> {
  const body = JSON.stringify({ verificationSignature: signVerificationCode(key, code) });
  const response = await call(baseUrl, '/auth/certificate/check', authToken, body);
  if (!response.ok) throw await failure(response);
  return (await response.json()) as CertificateResult;
}

export interface SignOperationOptions {
  userId: string;
  lockId: string;
  operation: Record<string, unknown> & { type: string };
  /** EdDSA: the ephemeral key and its certificate chain. */
  key?: EphemeralKey;
  certificateChain?: string[];
  /** RS256: the legacy private key from login v1 / registration v1-v2 (Base64 PKCS#8 DER). */
  rsaPrivateKey?: string;
  /** Seconds from iat to exp; at most 60 for MUTATE_LOCK. Default 60. */
  lifetimeSeconds?: number;
  /** Default: a new UUID. null leaves the token without jti (then its bytes identify it). */
  jti?: string | null;
  /** Unix seconds. Default: the clock (correct it with GET /time when it is off). */
  now?: number;
}

const segment = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** A compact JWT for POST /device/{lockId}/execute, signed EdDSA (key + chain) or RS256. */
export function signOperation(options: SignOperationOptions): string {
  const now = Math.floor(options.now ?? Date.now() / 1000);
  const eddsa = options.key !== undefined;
  if (eddsa && !options.certificateChain) throw new TypeError('EdDSA signing needs the certificate chain');
  if (!eddsa && !options.rsaPrivateKey) throw new TypeError('give key + certificateChain, or rsaPrivateKey');
  const header = eddsa ? { alg: 'EdDSA', typ: 'JWT', x5c: options.certificateChain } : { alg: 'RS256', typ: 'JWT' };
  const jti = options.jti === undefined ? randomUUID() : options.jti;
  const payload = {
    iss: options.userId,
    sub: options.lockId,
    nbf: now,
    iat: now,
    exp: now + (options.lifetimeSeconds ?? 60),
    ...(jti === null ? {} : { jti }),
    operation: options.operation,
  };
  const input = `${segment(header)}.${segment(payload)}`;
  const signature = eddsa
    ? sign(null, Buffer.from(input), options.key!.privateKey)
    : sign('sha256', Buffer.from(input), createPrivateKey({ key: Buffer.from(options.rsaPrivateKey!, 'base64'), format: 'der', type: 'pkcs8' }));
  return `${input}.${signature.toString('base64url')}`;
}

/** POST /device/{lockId}/execute; resolves on 200, throws LatchkeyError otherwise. */
export async function executeOperation(baseUrl: string, authToken: string, lockId: string, token: string): Promise<void> {
  const response = await call(baseUrl, `/device/${encodeURIComponent(lockId)}/execute`, authToken, token, 'application/json;charset=UTF-8');
  if (!response.ok) throw await failure(response);
  await response.body?.cancel();
}
