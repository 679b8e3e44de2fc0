import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, it } from 'node:test';
import { SignJWT, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import { ServiceTokens } from '../../src/crypto/service-tokens.js';
import { createUser } from '../helpers/factories.js';
import { TEST_BASE_URL, useService } from '../helpers/service.js';
import { assertError } from './support.js';

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('auth tokens that must be refused', () => {
  const t = useService({ withUser: true });

  const account = (token: string) => t.api.get('/account', { token });

  /** Signs `claims` like the service does, with `key` (the service's own signing key unless given). */
  function sign(claims: JWTPayload, options: { key?: KeyObject; kid?: string; typ?: string | null; alg?: string } = {}) {
    const service = t.service.ctx.keys.signingKey();
    const header: Record<string, unknown> = { alg: options.alg ?? 'EdDSA', kid: options.kid ?? service.kid };
    if (options.typ !== null) header.typ = options.typ ?? 'at+jwt';
    const now = Math.floor(Date.now() / 1000);
    const { sub, sid } = decodeJwt(t.user.authToken);
    return new SignJWT({ iss: TEST_BASE_URL, aud: [TEST_BASE_URL], sub, sid, iat: now, exp: now + 600, ...claims })
      .setProtectedHeader(header as never)
      .sign(options.key ?? service.privateKey);
  }

  /** The service's own token issuer, with a clock `offsetSeconds` away from now. */
  const tokensAt = (offsetSeconds: number) =>
    new ServiceTokens({ keys: t.service.ctx.keys, baseUrl: TEST_BASE_URL, authTtlSeconds: 3600, refreshTtlSeconds: 7200, now: () => Date.now() / 1000 + offsetSeconds });

  const subject = () => {
    const { sub, sid } = decodeJwt(t.user.authToken) as { sub: string; sid: string };
    return { userId: sub, sessionId: sid, email: t.user.email, emailVerified: false, telephone: null, telephoneVerified: false, displayName: null };
  };

  it('control: a token signed here the way the service signs is accepted', async () => {
    assert.equal((await account(await sign({}))).status, 200);
    assert.equal((await account(await tokensAt(0).issueAuth(subject()))).status, 200);
  });

  it('an expired auth token answers 401', async () => {
    const expired = await tokensAt(-2 * 3600).issueAuth(subject());
    assert.ok(decodeJwt(expired).exp! < Date.now() / 1000);
    assertError(await account(expired), 401);
    assertError(await account(await sign({ exp: Math.floor(Date.now() / 1000) - 60 })), 401);
  });

  it('an expired refresh token answers 401', async () => {
    const { sid, sub } = decodeJwt(t.user.refreshToken) as { sid: string; sub: string };
    const session = await t.service.ctx.db.kysely.selectFrom('sessions').select('refresh_id').where('id', '=', sid).executeTakeFirstOrThrow();
    const expired = await tokensAt(-3 * 7200).issueRefresh(sub, sid, session.refresh_id);
    assertError(await t.api.post('/auth/token/refresh', { token: expired }), 401);
  });

  it('a token signed with another key under the service kid answers 401', async () => {
    const stranger = generateKeyPairSync('ed25519').privateKey;
    assertError(await account(await sign({}, { key: stranger })), 401);
  });

  it('a token with an unknown or malformed kid answers 401 (never a 500)', async () => {
    assertError(await account(await sign({}, { kid: crypto.randomUUID() })), 401);
    for (const kid of [{ nested: true }, 42, '', 'x'.repeat(5000), 'a\u0000b', null]) {
      const token = `${b64url({ alg: 'EdDSA', typ: 'at+jwt', kid })}.${b64url({ iss: TEST_BASE_URL, sub: 'x' })}.AAAA`;
      assertError(await account(token), 401);
    }
  });

  it('a token whose payload was altered (another user) answers 401', async () => {
    const other = await createUser(t.api);
    const [header, , signature] = t.user.authToken.split('.') as [string, string, string];
    const payload = { ...decodeJwt(t.user.authToken), sub: other.userId };
    assertError(await account(`${header}.${b64url(payload)}.${signature}`), 401);
  });

  it('a token whose signature was altered answers 401, even after the genuine one was cached', async () => {
    assert.equal((await account(t.user.authToken)).status, 200);
    const [header, payload, signature] = t.user.authToken.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, 5)}${signature[5] === 'A' ? 'B' : 'A'}${signature.slice(6)}`;
    assertError(await account(`${header}.${payload}.${flipped}`), 401);
    assertError(await account(`${header}.${payload}.`), 401);
    assertError(await account(`${header}.${payload}`), 401);
  });

  it('claims are checked: audience, issuer, type, algorithm, required claims', async () => {
    const now = Math.floor(Date.now() / 1000);
    const refused = [
      await sign({ aud: ['https://elsewhere.example'] }),
      await sign({ iss: 'https://elsewhere.example' }),
      await sign({}, { typ: 'refresh+jwt' }),
      await sign({}, { typ: 'JWT' }),
      await sign({}, { typ: null }),
      await sign({ sid: undefined }),
      await sign({ exp: undefined }),
      await sign({ sub: undefined }),
      await sign({ nbf: now + 3600 }),
    ];
    for (const token of refused) assertError(await account(token), 401);
    const unsigned = `${b64url({ alg: 'none', typ: 'at+jwt', kid: decodeProtectedHeader(t.user.authToken).kid })}.${b64url(decodeJwt(t.user.authToken))}.`;
    assertError(await account(unsigned), 401);
  });

  it('a token naming another user than its session answers 401', async () => {
    const other = await createUser(t.api);
    assertError(await account(await sign({ sid: decodeJwt(other.authToken).sid as string })), 401);
    assertError(await account(await sign({ sid: crypto.randomUUID() })), 401);
  });

  it('malformed Authorization headers answer 401', async () => {
    for (const authorization of ['', 'Bearer', 'Bearer ', `Basic ${t.user.authToken}`, `Token ${t.user.authToken}`, `Bearer ${t.user.authToken} extra`]) {
      assertError(await t.api.get('/account', { headers: { authorization } }), 401);
    }
    assert.equal((await t.api.get('/account', { headers: { authorization: `bearer ${t.user.authToken}` } })).status, 200, 'the scheme is case-insensitive');
  });
});
