import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import type { RequestOptions } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { assertError } from './support.js';

describe('logout', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  const account = (token: string) => t.api.get('/account', { token });
  const refresh = (token: string) => t.api.post('/auth/token/refresh', { token });

  const variants: Array<[string, string, Omit<RequestOptions, 'token'>]> = [
    ['/token/destroy without a body', '/token/destroy', {}],
    ['/auth/token/destroy without a body', '/auth/token/destroy', {}],
    ['/token/destroy with Content-Type: application/json and an empty body', '/token/destroy', { rawBody: '', contentType: 'application/json' }],
    ['/auth/token/destroy with Content-Type: application/json and an empty body', '/auth/token/destroy', { rawBody: '', contentType: 'application/json' }],
    ['/auth/token/destroy/ with a trailing slash and {}', '/auth/token/destroy/', { body: {} }],
  ];

  for (const [label, path, options] of variants) {
    it(`${label} ends the session: auth and refresh tokens answer 401 at once`, async () => {
      const user = await createUser(t.api);
      // The auth token is now cached as verified; logout must still take effect immediately.
      assert.equal((await account(user.authToken)).status, 200);
      const res = await t.api.post(path, { ...options, token: user.authToken });
      assert.equal(res.status, 204, res.text);
      assert.equal(res.text, '');
      assertError(await account(user.authToken), 401);
      assertError(await refresh(user.refreshToken), 401);
    });
  }

  it('ends the tokens refreshed from the session too', async () => {
    const user = await createUser(t.api);
    const refreshed = await refresh(user.refreshToken);
    assert.equal(refreshed.status, 200);
    assert.equal((await t.api.post('/token/destroy', { token: user.authToken })).status, 204);
    assertError(await account(refreshed.body.authToken), 401);
    assertError(await refresh(refreshed.body.refreshToken), 401);
  });

  it('ends only that session: the same user elsewhere stays signed in', async () => {
    const user = await createUser(t.api);
    const other = await t.api.post('/auth/token', { version: 2, body: { email: user.email, password: user.password } });
    assert.equal((await t.api.post('/token/destroy', { token: user.authToken })).status, 204);
    assert.equal((await account(other.body.authToken)).status, 200);
    assert.equal((await refresh(other.body.refreshToken)).status, 200);
  });

  it('a second logout with the same token answers 401', async () => {
    const user = await createUser(t.api);
    assert.equal((await t.api.post('/token/destroy', { token: user.authToken })).status, 204);
    assertError(await t.api.post('/token/destroy', { token: user.authToken }), 401);
  });

  it('needs an auth token: none, garbage or a refresh token answer 401', async () => {
    const user = await createUser(t.api);
    assertError(await t.api.post('/token/destroy'), 401);
    assertError(await t.api.post('/auth/token/destroy', { token: 'garbage' }), 401);
    assertError(await t.api.post('/auth/token/destroy', { token: user.refreshToken }), 401);
    assert.equal((await account(user.authToken)).status, 200, 'the failed attempts ended nothing');
  });

  it('after logout the user can log in again', async () => {
    const user = await createUser(t.api);
    await t.api.post('/token/destroy', { token: user.authToken });
    const login = await t.api.post('/auth/token', { version: 2, body: { email: user.email, password: user.password } });
    assert.equal(login.status, 200);
    assert.equal((await account(login.body.authToken)).status, 200);
  });
});
