import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLegacyUser, uniqueEmail, type TestUser } from '../helpers/factories.js';
import type { Api } from '../helpers/http.js';
import { startInstanceBeside, startTestService, TEST_REDIS_URL, useService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { assertError, verificationCode } from './support.js';

/**
 * Sessions read once are kept in memory (src/accounts/live-sessions.ts). Every test here first
 * makes a request with each token involved, so that its session is held, and then checks that a
 * change to the account or its sessions is seen by the very next request. Users are registered
 * with v1: a v3 account's first GET /account makes its legacy key, a change of its own.
 */
describe('sessions held in memory see every account change at once', () => {
  const t = useService({ withMail: true });

  const account = (token: string) => t.api.get('/account', { token });
  const login = (user: Pick<TestUser, 'email' | 'password'>, version = 2) => t.api.post('/auth/token', { version, body: { email: user.email, password: user.password } });
  async function held(token: string): Promise<Record<string, unknown>> {
    const res = await account(token);
    assert.equal(res.status, 200, res.text);
    return res.body as Record<string, unknown>;
  }

  it('a password change ends the other sessions that were in use', async () => {
    const user = await createLegacyUser(t.api);
    const other = (await login(user)).body.authToken as string;
    await held(user.authToken);
    await held(other);
    const res = await t.api.post('/account/password', { token: user.authToken, body: { oldPassword: user.password, newPassword: 'another good password' } });
    assert.equal(res.status, 204, res.text);
    assertError(await account(other), 401);
    await held(user.authToken);
  });

  it('a reused refresh token ends the session whose auth token was in use', async () => {
    const user = await createLegacyUser(t.api);
    await held(user.authToken);
    assert.equal((await t.api.post('/auth/token/refresh', { token: user.refreshToken })).status, 200);
    assertError(await t.api.post('/auth/token/refresh', { token: user.refreshToken }), 401);
    assertError(await account(user.authToken), 401);
  });

  it('logout of one session leaves the user’s other held session working', async () => {
    const user = await createLegacyUser(t.api);
    const other = (await login(user)).body.authToken as string;
    await held(user.authToken);
    await held(other);
    assert.equal((await t.api.post('/auth/token/destroy', { token: other })).status, 204);
    assertError(await account(other), 401);
    await held(user.authToken);
  });

  it('a display name change shows in every session of the user', async () => {
    const user = await createLegacyUser(t.api);
    const other = (await login(user)).body.authToken as string;
    await held(other);
    assert.equal((await t.api.post('/account', { token: user.authToken, body: { displayName: 'Renamed' } })).status, 204);
    assert.equal((await held(other)).displayName, 'Renamed');
  });

  it('a verified email shows in a held session', async () => {
    const user = await createLegacyUser(t.api);
    const { code } = await verificationCode(t.sink, user.email);
    assert.equal((await held(user.authToken)).emailVerified, false);
    assert.equal((await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`)).status, 204);
    assert.equal((await held(user.authToken)).emailVerified, true);
  });

  it('a legacy key made after a session opened shows in that session', async () => {
    const email = uniqueEmail();
    const password = 'correct horse battery';
    const registered = await t.api.post('/auth/register', { version: 3, body: { email, password } });
    assert.equal(registered.status, 200, registered.text);
    const before = await held(registered.body.authToken as string);
    // A v3 account has no legacy key until its first GET /account makes one (the SDK requires it).
    assert.equal(typeof before.publicKey, 'string');
    assert.equal((await held(registered.body.authToken as string)).publicKey, before.publicKey, 'the held session sees the key made at the read');
    const v1 = await login({ email, password }, 1);
    assert.equal(v1.status, 200, v1.text);
    assert.equal(v1.body.publicKey, before.publicKey);
  });
});

// Issue 17: each instance now holds sessions too, and a logout reaches the others over the bus
// (within 100 ms asked; milliseconds in practice), not in the same instant.
describe('several instances (shared database and Redis) see a logout within moments', () => {
  let first: TestService;
  let second: Api;
  let closeSecond: () => Promise<void>;
  before(async () => {
    first = await startTestService({ REDIS_URL: TEST_REDIS_URL });
    ({ api: second, close: closeSecond } = await startInstanceBeside(first));
  });
  after(async () => {
    await closeSecond?.();
    await first?.close();
  });

  it('a session in use on the second instance ends with a logout on the first', async () => {
    const user = await createLegacyUser(first.api);
    assert.equal((await second.get('/account', { token: user.authToken })).status, 200);
    assert.equal((await first.api.post('/auth/token/destroy', { token: user.authToken })).status, 204);
    const refused = async () => {
      const answer = await second.get('/account', { token: user.authToken });
      return answer.status !== 200 && answer;
    };
    const answer = await eventually(refused, 'the second instance refusing the session', 2000, 5);
    assertError(answer, 401);
  });
});
