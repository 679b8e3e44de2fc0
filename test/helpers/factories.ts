import { decodeJwt } from 'jose';
import type { Api } from './http.js';

export interface TestUser {
  userId: string;
  email: string;
  password: string;
  displayName: string;
  authToken: string;
  refreshToken: string;
  publicKey: string;
  privateKey: string;
}

let counter = 0;

export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** Registers a direct user through the API (v1, so it has a legacy key pair). */
export async function createUser(api: Api, overrides: Partial<{ email: string; password: string; displayName: string }> = {}): Promise<TestUser> {
  const email = overrides.email ?? uniqueEmail();
  const password = overrides.password ?? 'correct horse battery';
  const displayName = overrides.displayName ?? `Test ${email.split('@')[0]}`;
  const response = await api.post('/auth/register', { body: { email, password, displayName } });
  if (response.status !== 200) throw new Error(`registration failed: ${response.status} ${response.text}`);
  const { authToken, refreshToken, publicKey, privateKey } = response.body;
  return { userId: decodeJwt(authToken).sub!, email, password, displayName, authToken, refreshToken, publicKey, privateKey };
}
