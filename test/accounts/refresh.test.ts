import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { createUser } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { assertError } from './support.js';

describe('token refresh', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  const refresh = (token: string) => t.api.post('/auth/token/refresh', { token });
  const account = (token: string) => t.api.get('/account', { token });

  it('exchanges the refresh token for a new pair of the same session', async () => {
    const user = await createUser(t.api);
    const res = await refresh(user.refreshToken);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['authToken', 'refreshToken']);
    assert.notEqual(res.body.refreshToken, user.refreshToken);
    const before = decodeJwt(user.authToken);
    const after = decodeJwt(res.body.authToken);
    assert.equal(after.sub, before.sub);
    assert.equal(after.sid, before.sid);
    assert.equal(after.auth_time, before.auth_time, 'a refresh is not an authentication');
    assert.equal((await account(res.body.authToken)).status, 200);
    assert.equal((await account(user.authToken)).status, 200, 'the earlier auth token of a live session still works');
  });

  it('the refreshed auth token keeps the time of the login (auth_time)', async () => {
    const user = await createUser(t.api);
    const sid = decodeJwt(user.authToken).sid as string;
    const loggedInAt = Math.floor(Date.now() / 1000) - 3 * 3600;
    await t.service.ctx.db.kysely.updateTable('sessions').set({ created: loggedInAt }).where('id', '=', sid).execute();
    const res = await refresh(user.refreshToken);
    assert.equal(decodeJwt(res.body.authToken).auth_time, loggedInAt);
  });

  it('each new refresh token works in turn', async () => {
    const user = await createUser(t.api);
    let token = user.refreshToken;
    for (let i = 0; i < 3; i += 1) {
      const res = await refresh(token);
      assert.equal(res.status, 200, res.text);
      token = res.body.refreshToken;
    }
  });

  it('a reused refresh token answers 401 and revokes the whole session', async () => {
    const user = await createUser(t.api);
    const first = await refresh(user.refreshToken);
    const second = await refresh(first.body.refreshToken);
    assert.equal(second.status, 200);

    assertError(await refresh(user.refreshToken), 401);

    for (const token of [user.authToken, first.body.authToken, second.body.authToken]) assertError(await account(token), 401);
    assertError(await refresh(second.body.refreshToken), 401);
  });

  it('reuse revokes only that session: the same user elsewhere stays signed in', async () => {
    const user = await createUser(t.api);
    const elsewhere = await t.api.post('/auth/token', { version: 2, body: { email: user.email, password: user.password } });
    await refresh(user.refreshToken);
    assertError(await refresh(user.refreshToken), 401);
    assert.equal((await account(elsewhere.body.authToken)).status, 200);
    assert.equal((await refresh(elsewhere.body.refreshToken)).status, 200);
  });

  it('refuses an auth token at the refresh endpoint', async () => {
    const user = await createUser(t.api);
    assertError(await refresh(user.authToken), 401);
    assert.equal((await account(user.authToken)).status, 200, 'the attempt does not end the session');
    assert.equal((await refresh(user.refreshToken)).status, 200);
  });

  it('refuses a refresh token as Bearer on ordinary endpoints', async () => {
    const user = await createUser(t.api);
    assertError(await account(user.refreshToken), 401);
    assertError(await t.api.post('/account', { token: user.refreshToken, body: { displayName: 'Mallory' } }), 401);
    assertError(await t.api.post('/token/destroy', { token: user.refreshToken }), 401);
    assert.equal((await refresh(user.refreshToken)).status, 200, 'and the refresh token is not spent by that');
  });

  it('refuses missing, malformed and garbage tokens with 401', async () => {
    assertError(await t.api.post('/auth/token/refresh'), 401);
    for (const token of ['garbage', 'a.b.c', 'e30.e30.', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.']) assertError(await refresh(token), 401);
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b']) {
      assertError(await t.api.post('/auth/token/refresh', { headers: { authorization } }), 401);
    }
  });

  it('ignores a JSON content type with an empty body', async () => {
    const user = await createUser(t.api);
    const res = await t.api.post('/auth/token/refresh', { token: user.refreshToken, rawBody: '', contentType: 'application/json' });
    assert.equal(res.status, 200, res.text);
  });

  it('ignores any other content type on an empty body (Java labels body-less POSTs form-encoded), and logout does too', async () => {
    const user = await createUser(t.api);
    for (const contentType of ['application/x-www-form-urlencoded', 'application/octet-stream', 'text/plain']) {
      const res = await t.api.post('/auth/token/refresh', { token: user.refreshToken, rawBody: '', contentType });
      assert.equal(res.status, 200, `${contentType}: ${res.text}`);
      user.refreshToken = res.body.refreshToken;
    }
    const out = await t.api.post('/token/destroy', { token: user.authToken, rawBody: '', contentType: 'application/x-www-form-urlencoded' });
    assert.equal(out.status, 204, out.text);
    // A body that is there but not JSON is still refused.
    assertError(await t.api.post('/auth/token/refresh', { token: user.refreshToken, rawBody: 'a=b', contentType: 'application/x-www-form-urlencoded' }), 415);
  });

  it('a refresh token whose signature was altered answers 401', async () => {
    const user = await createUser(t.api);
    const [header, payload, signature] = user.refreshToken.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    assertError(await refresh(`${header}.${payload}.${flipped}`), 401);
    assert.equal((await refresh(user.refreshToken)).status, 200);
  });
});
