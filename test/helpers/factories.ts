import { decodeJwt } from 'jose';
import { generateEphemeralKey, type EphemeralKey } from '../../src/client/index.js';
import type { Api } from './http.js';

/** A direct user registered with v3, as today's clients register: a password and an Ed25519 key, no legacy key pair. */
export interface TestUser {
  userId: string;
  email: string;
  password: string;
  displayName: string;
  authToken: string;
  refreshToken: string;
  /** The Ed25519 key sent with the registration (its first certificate needs no secondary check). */
  key: EphemeralKey;
}

/** A direct user registered with v1: the service made it a legacy RSA key pair (RS256 operations, `publicKey` in lists). */
export interface LegacyUser extends Omit<TestUser, 'key'> {
  publicKey: string;
  privateKey: string;
}

/** Either kind of test user, for helpers that only need its id and tokens. */
export type AnyUser = TestUser | LegacyUser;

export interface UserOverrides {
  email?: string;
  password?: string;
  displayName?: string;
}

let counter = 0;

export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

async function register(api: Api, version: 1 | 3, overrides: UserOverrides, extra: Record<string, string> = {}) {
  const email = overrides.email ?? uniqueEmail();
  const password = overrides.password ?? 'correct horse battery';
  const displayName = overrides.displayName ?? `Test ${email.split('@')[0]}`;
  const response = await api.post('/auth/register', { version: version === 1 ? undefined : version, body: { email, password, displayName, ...extra } });
  if (response.status !== 200) throw new Error(`registration v${version} failed: ${response.status} ${response.text}`);
  const { authToken, refreshToken } = response.body as { authToken: string; refreshToken: string };
  return { fields: { userId: decodeJwt(authToken).sub!, email, password, displayName, authToken, refreshToken }, body: response.body };
}

/**
 * Registers a direct user through the API with v3 (no RSA key pair: about 2.5 times cheaper than
 * v1). Use `createLegacyUser` where a test needs the legacy key or checks v1 behaviour.
 */
export async function createUser(api: Api, overrides: UserOverrides = {}): Promise<TestUser> {
  const key = generateEphemeralKey();
  const { fields } = await register(api, 3, overrides, { ephemeralKey: key.publicKeyBase64 });
  return { ...fields, key };
}

/** Registers a direct user with v1: its answer carries the legacy key pair the service made and keeps. */
export async function createLegacyUser(api: Api, overrides: UserOverrides = {}): Promise<LegacyUser> {
  const { fields, body } = await register(api, 1, overrides);
  const { publicKey, privateKey } = body as { publicKey: string; privateKey: string };
  return { ...fields, publicKey, privateKey };
}
