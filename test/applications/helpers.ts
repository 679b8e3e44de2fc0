import { CompactEncrypt, SignJWT, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { randomUUID } from 'node:crypto';
import { createUser, type TestUser } from '../helpers/factories.js';
import type { Api } from '../helpers/http.js';
import { TEST_BASE_URL } from '../helpers/service.js';

/** The application record as the API returns it (decisions §6). */
export interface ApplicationRecord {
  applicationId: string;
  name: string;
  companyName: string;
  mailingAddress: string;
  owners: string[];
  authKeys: Record<string, JWK>;
  authDomains: string[];
  corsDomains: string[];
  encryptionKey: JWK;
  lastUpdated: number;
  [field: string]: unknown;
}

/** Test helpers for third-party applications: an owner, an app, its signing key and issuer. */
export interface ThirdParty {
  owner: TestUser;
  applicationId: string;
  record: ApplicationRecord;
  issuer: string;
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export function applicationBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: `App ${randomUUID().slice(0, 8)}`, companyName: 'Example Ltd', mailingAddress: '1 Example Street, Exampletown', ...overrides };
}

export async function createApplication(api: Api, owner: TestUser, overrides: Record<string, unknown> = {}): Promise<ApplicationRecord> {
  const res = await api.post<ApplicationRecord>('/platform/application', { token: owner.authToken, body: applicationBody(overrides) });
  if (res.status !== 201) throw new Error(`application creation failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function signingKey(alg = 'ES256', kid: string = randomUUID()): Promise<{ kid: string; alg: string; privateKey: CryptoKey; publicJwk: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid } };
}

/** An owner, an application with one signing key (`alg`) and a registered issuer. */
export async function createThirdParty(api: Api, options: { owner?: TestUser; alg?: string; kid?: string } = {}): Promise<ThirdParty> {
  const owner = options.owner ?? (await createUser(api));
  const record = await createApplication(api, owner);
  const applicationId = record.applicationId;
  const key = await signingKey(options.alg, options.kid);
  const issuer = `https://issuer-${randomUUID()}.example.com`;
  const added = await api.post(`/platform/application/${applicationId}/key`, { token: owner.authToken, body: key.publicJwk });
  if (added.status !== 204) throw new Error(`key registration failed: ${added.status} ${added.text}`);
  const registered = await api.post(`/platform/application/${applicationId}/issuer`, { token: owner.authToken, body: { url: issuer } });
  if (registered.status !== 204) throw new Error(`issuer registration failed: ${registered.status} ${registered.text}`);
  return { owner, applicationId, record, issuer, ...key };
}

export interface TokenOptions {
  claims?: JWTPayload;
  sub?: string;
  issuer?: string;
  audience?: string | string[];
  expiresIn?: number;
  omit?: Array<'iat' | 'exp' | 'kid'>;
  key?: { kid: string; alg: string; privateKey: CryptoKey };
  /** The third party's clock (Unix seconds), for `iat` and `exp`; the system's by default. */
  now?: number;
}

/** A token as the third party would issue it; every part can be bent for negative tests. */
export async function thirdPartyToken(party: ThirdParty, options: TokenOptions = {}): Promise<string> {
  const key = options.key ?? party;
  const now = Math.floor(options.now ?? Date.now() / 1000);
  const payload: JWTPayload = { ...options.claims };
  if (!options.omit?.includes('iat')) payload.iat = now;
  if (!options.omit?.includes('exp')) payload.exp = now + (options.expiresIn ?? 3600);
  const header = options.omit?.includes('kid') ? { alg: key.alg } : { alg: key.alg, kid: key.kid };
  return new SignJWT(payload)
    .setProtectedHeader(header)
    .setIssuer(options.issuer ?? party.issuer)
    .setAudience(options.audience ?? [TEST_BASE_URL])
    .setSubject(options.sub ?? `user-${randomUUID()}`)
    .sign(key.privateKey);
}

/** The `identity` of a directory query: a token encrypted to an application's encryptionKey. */
export async function identityJwe(token: string, encryptionKey: JWK, alg = 'RSA-OAEP-256', enc = 'A256GCM'): Promise<string> {
  const key = await importJWK({ ...encryptionKey, alg }, alg);
  return new CompactEncrypt(new TextEncoder().encode(token)).setProtectedHeader({ alg, enc, kid: encryptionKey.kid as string, cty: 'JWT' }).encrypt(key);
}
