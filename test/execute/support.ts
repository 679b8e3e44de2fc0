import { createHmac } from 'node:crypto';
import { generateEphemeralKey, requestCertificate, signOperation, type EphemeralKey, type SignOperationOptions } from '../../src/client/index.js';
import type { TestClock } from '../helpers/clock.js';
import type { AnyUser } from '../helpers/factories.js';
import type { TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

/** A user with a certified ephemeral key. */
export type Signer<U extends AnyUser = AnyUser> = U & {
  key: EphemeralKey;
  certificateChain: string[];
  /** The service's clock when the test gave it one: operations are signed by it. */
  clock: TestClock | undefined;
};

/**
 * Certifies the key a v3 user registered with (no secondary check: it came with the password), or
 * a new key of a legacy user (then the service must run with CERT_CHECK=never).
 */
export async function certify<U extends AnyUser>(t: TestService, user: U): Promise<Signer<U>> {
  const key = 'key' in user ? user.key : generateEphemeralKey();
  const result = await requestCertificate(t.service.url, user.authToken, key);
  if ('needsVerification' in result) throw new Error('start the service with CERT_CHECK=never');
  return { ...user, key, certificateChain: result.certificateChain, clock: t.clock };
}

export type Operation = SignOperationOptions['operation'];

/** An EdDSA token of `signer` for `lockId`. */
export function signed(signer: Signer, lockId: string, operation: Operation, options: Partial<SignOperationOptions> = {}): string {
  const now = signer.clock?.now();
  return signOperation({ key: signer.key, certificateChain: signer.certificateChain, userId: signer.userId, lockId, operation, ...(now === undefined ? {} : { now }), ...options });
}

export function execute(t: TestService, caller: AnyUser, lockId: string, token: string, contentType = 'application/json;charset=UTF-8') {
  return t.api.post(`/device/${lockId}/execute`, { token: caller.authToken, rawBody: token, contentType });
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function claimsFor(userId: string, lockId: string, operation: Operation, now = Math.floor(Date.now() / 1000)) {
  return { iss: userId, sub: lockId, iat: now, nbf: now, exp: now + 30, jti: crypto.randomUUID(), operation };
}

/** A token with `alg: none` and no signature. */
export function unsignedToken(claims: object): string {
  return `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
}

/** An HS256 token (its "key" being anything an attacker likes, e.g. a public key). */
export function hs256Token(claims: object, secret: string): string {
  const input = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

export async function waitUntilOnline(t: TestService, lockId: string): Promise<void> {
  await eventually(() => t.service.ctx.link.isOnline(lockId), 'lock online');
}

export const unlock: Operation = { type: 'MUTATE_LOCK', locked: false };
export const settingDuration = (seconds: number): Operation => ({ type: 'MUTATE_SETTING', unlockDuration: seconds });
