import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { createLegacyUser, createUser } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { assertError } from './support.js';

describe('account', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  it('GET /account answers exactly the four documented fields', async () => {
    const user = await createLegacyUser(t.api);
    const res = await t.api.get('/account', { token: user.authToken });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(res.body, { publicKey: user.publicKey, email: user.email, displayName: user.displayName, emailVerified: false });
  });

  it('GET /account needs a valid auth token', async () => {
    assertError(await t.api.get('/account'), 401);
    assertError(await t.api.get('/account', { token: 'garbage' }), 401);
  });

  it('POST /account changes the display name (204), and nothing else', async () => {
    const user = await createLegacyUser(t.api);
    const res = await t.api.post('/account', { token: user.authToken, body: { displayName: 'Ada Lovelace', email: 'evil@example.com', emailVerified: true } });
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');
    const account = await t.api.get('/account', { token: user.authToken });
    assert.deepEqual(account.body, { publicKey: user.publicKey, email: user.email, displayName: 'Ada Lovelace', emailVerified: false });
    const login = await t.api.post('/auth/token', { version: 2, body: { email: user.email, password: user.password } });
    assert.equal(decodeJwt(login.body.authToken).name, 'Ada Lovelace', 'new tokens carry the new name');
  });

  it('POST /account accepts any Unicode name up to 255 characters', async () => {
    const user = await createUser(t.api);
    for (const displayName of ['Zoë Ōsaka 東京 🚪', 'n'.repeat(255)]) {
      assert.equal((await t.api.post('/account', { token: user.authToken, body: { displayName } })).status, 204);
      assert.equal((await t.api.get('/account', { token: user.authToken })).body.displayName, displayName);
    }
  });

  it('POST /account refuses a missing, empty, oversize or mistyped name with 400', async () => {
    const user = await createUser(t.api);
    const bodies: unknown[] = [{}, { displayName: '' }, { displayName: 'n'.repeat(256) }, { displayName: 42 }, { displayName: ['Ada'] }, { displayName: null }, { displayName: 'a\u0000b' }, null];
    for (const body of bodies) assertError(await t.api.post('/account', { token: user.authToken, rawBody: JSON.stringify(body) }), 400);
    assertError(await t.api.post('/account', { token: user.authToken }), 400);
    assertError(await t.api.post('/account', { token: user.authToken, rawBody: '{"displayName":' }), 400);
    assert.equal((await t.api.get('/account', { token: user.authToken })).body.displayName, user.displayName);
  });

  it('POST /account needs a valid auth token', async () => {
    assertError(await t.api.post('/account', { body: { displayName: 'Nobody' } }), 401);
  });
});

describe('password change', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  const login = (email: string, password: string) => t.api.post('/auth/token', { version: 2, body: { email, password } });

  it('a wrong old password answers 403 (not 401) and keeps the session', async () => {
    const user = await createUser(t.api);
    const res = await t.api.post('/account/password', { token: user.authToken, body: { oldPassword: 'not it', newPassword: 'a brand new password' } });
    assertError(res, 403);
    assert.equal((await t.api.get('/account', { token: user.authToken })).status, 200);
    assert.equal((await login(user.email, user.password)).status, 200);
  });

  it('a new password shorter than 8 characters, or malformed bodies, answer 400', async () => {
    const user = await createUser(t.api);
    const bodies: unknown[] = [
      { oldPassword: user.password, newPassword: '1234567' },
      { oldPassword: user.password },
      { newPassword: 'a brand new password' },
      { oldPassword: user.password, newPassword: 'p'.repeat(1025) },
      { oldPassword: user.password, newPassword: 12345678 },
      null,
    ];
    for (const body of bodies) assertError(await t.api.post('/account/password', { token: user.authToken, rawBody: JSON.stringify(body) }), 400);
    assert.equal((await login(user.email, user.password)).status, 200, 'the password did not change');
  });

  it('success: 204, the old password fails, the new one works, other sessions end, this one stays', async () => {
    const user = await createUser(t.api);
    const other = await login(user.email, user.password);
    assert.equal(other.status, 200);
    const newPassword = 'a brand new password';
    const res = await t.api.post('/account/password', { token: user.authToken, body: { oldPassword: user.password, newPassword } });
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');

    assertError(await login(user.email, user.password), 401);
    assert.equal((await login(user.email, newPassword)).status, 200);

    assertError(await t.api.get('/account', { token: other.body.authToken }), 401);
    assertError(await t.api.post('/auth/token/refresh', { token: other.body.refreshToken }), 401);
    assert.equal((await t.api.get('/account', { token: user.authToken })).status, 200);
    assert.equal((await t.api.post('/auth/token/refresh', { token: user.refreshToken })).status, 200);
  });

  it('needs a valid auth token', async () => {
    assertError(await t.api.post('/account/password', { body: { oldPassword: 'whatever1', newPassword: 'whatever2' } }), 401);
  });
});
