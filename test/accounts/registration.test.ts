import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { uniqueEmail } from '../helpers/factories.js';
import { startTestService, TEST_BASE_URL, type TestService } from '../helpers/service.js';
import { assertError, assertLegacyKeyPair, assertTokenPair, subjectOf, usersWithEmail } from './support.js';

const password = 'correct horse battery';

describe('registration', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  it('v1 (no versioned Accept) returns both tokens and a working RSA-2048 key pair', async () => {
    const email = uniqueEmail('reg-v1');
    const res = await t.api.post('/auth/register', { body: { email, password, displayName: 'Ada' } });
    assertTokenPair(res, true);
    assertLegacyKeyPair(res.body.publicKey, res.body.privateKey);
    const account = await t.api.get('/account', { token: res.body.authToken });
    assert.equal(account.status, 200);
    assert.deepEqual(account.body, { publicKey: res.body.publicKey, email, displayName: 'Ada', emailVerified: false });
  });

  it('issues tokens with the documented claims', async () => {
    const email = uniqueEmail('claims');
    const res = await t.api.post('/auth/register', { body: { email, password, displayName: 'Grace' } });
    const claims = decodeJwt(res.body.authToken);
    assert.equal(claims.iss, TEST_BASE_URL);
    assert.equal(claims.aud, TEST_BASE_URL, 'a single string: the SDK reads every claim as a scalar');
    assert.match(claims.sub!, /^[0-9a-f-]{36}$/);
    assert.equal(typeof claims.sid, 'string');
    assert.equal(claims.email, email);
    assert.equal(claims.email_verified, false);
    assert.ok(claims.exp! > claims.iat!);
    const header = decodeProtectedHeader(res.body.authToken);
    assert.equal(header.alg, 'EdDSA');
    assert.equal(typeof header.kid, 'string');
    const refresh = decodeJwt(res.body.refreshToken);
    assert.equal(refresh.sub, claims.sub);
    assert.equal(refresh.sid, claims.sid);
    assert.ok(refresh.exp! > claims.exp!, 'the refresh token outlives the auth token');
  });

  it('v2 returns the key pair too', async () => {
    const res = await t.api.post('/auth/register', { version: 2, body: { email: uniqueEmail('reg-v2'), password } });
    assertTokenPair(res, true);
    assertLegacyKeyPair(res.body.publicKey, res.body.privateKey);
  });

  it('v3 returns the tokens only; the key is made at the first GET /account (the SDK requires it)', async () => {
    const res = await t.api.post('/auth/register', { version: 3, body: { email: uniqueEmail('reg-v3'), password } });
    assertTokenPair(res, false);
    const account = await t.api.get('/account', { token: res.body.authToken });
    assert.equal(typeof account.body.publicKey, 'string');
    assert.equal((await t.api.get('/account', { token: res.body.authToken })).body.publicKey, account.body.publicKey, 'made once');
    assert.equal(account.body.displayName, null);
  });

  it('an unsupported version above v3 gets the highest (v3) behaviour', async () => {
    const res = await t.api.post('/auth/register', { version: 9, body: { email: uniqueEmail('reg-v9'), password } });
    assertTokenPair(res, false);
  });

  it('the vendor segment of the media type is not checked', async () => {
    const res = await t.api.post('/auth/register', { accept: 'application/vnd.latchkey.api-v3+json', body: { email: uniqueEmail('vendor'), password } });
    assertTokenPair(res, false);
  });

  it('answers 409 for an email already registered, in any case and any version', async () => {
    const email = uniqueEmail('dup');
    const first = await t.api.post('/auth/register', { body: { email, password } });
    assert.equal(first.status, 200);
    for (const [version, address] of [
      [1, email],
      [2, email.toUpperCase()],
      [3, email],
    ] as const) {
      const again = await t.api.post('/auth/register', { version, body: { email: address, password: 'another password' } });
      assertError(again, 409);
    }
    const again = await t.api.post('/auth/register?force=true', { version: 2, body: { email, password } });
    assertError(again, 409);
    assert.equal((await usersWithEmail(t, email)).length, 1);
    // The original password still works: nothing was overwritten.
    const login = await t.api.post('/auth/token', { body: { email, password } });
    assert.equal(login.status, 200);
    assert.equal(subjectOf(login.body.authToken), subjectOf(first.body.authToken));
  });

  it('keeps one account when the same email registers concurrently', async () => {
    const email = uniqueEmail('race');
    const results = await Promise.all([1, 2, 3].map(() => t.api.post('/auth/register', { version: 3, body: { email, password } })));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) assertError(r, 409);
    assert.equal((await usersWithEmail(t, email)).length, 1);
  });
});
