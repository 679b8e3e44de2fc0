import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uniqueEmail } from '../helpers/factories.js';
import { useService } from '../helpers/service.js';
import { assertError, assertLegacyKeyPair, assertTokenPair, subjectOf } from './support.js';

describe('login', () => {
  const t = useService({ withUser: 'legacy' });

  const credentials = () => ({ email: t.legacyUser.email, password: t.legacyUser.password });

  it('v1 (no versioned Accept) returns the tokens and the key pair from registration', async () => {
    const res = await t.api.post('/auth/token', { body: credentials() });
    assertTokenPair(res, true);
    assert.equal(res.body.publicKey, t.legacyUser.publicKey);
    assert.equal(res.body.privateKey, t.legacyUser.privateKey);
    assert.equal(subjectOf(res.body.authToken), t.legacyUser.userId);
    assert.notEqual(res.body.authToken, t.legacyUser.authToken, 'a new session');
    const account = await t.api.get('/account', { token: res.body.authToken });
    assert.equal(account.status, 200);
  });

  it('v1 with Accept: application/json or */* is still v1', async () => {
    for (const accept of ['application/json', '*/*', 'application/*']) {
      assertTokenPair(await t.api.post('/auth/token', { accept, body: credentials() }), true);
    }
  });

  it('v2 returns the tokens without keys', async () => {
    assertTokenPair(await t.api.post('/auth/token', { version: 2, body: credentials() }), false);
  });

  it('a versioned type listed beside application/json wins, in either order', async () => {
    for (const accept of ['application/json, application/vnd.doordeck.api-v2+json', 'application/vnd.doordeck.api-v2+json, application/json;q=0.9']) {
      assertTokenPair(await t.api.post('/auth/token', { accept, body: credentials() }), false);
    }
  });

  it('v3 and above fall back to v2', async () => {
    assertTokenPair(await t.api.post('/auth/token', { version: 3, body: credentials() }), false);
    assertTokenPair(await t.api.post('/auth/token', { version: 42, body: credentials() }), false);
  });

  it('the email is matched without regard to case', async () => {
    const res = await t.api.post('/auth/token', { version: 2, body: { email: t.legacyUser.email.toUpperCase(), password: t.legacyUser.password } });
    assertTokenPair(res, false);
    assert.equal(subjectOf(res.body.authToken), t.legacyUser.userId);
  });

  it('a wrong password and an unknown email both answer 401 with the same message', async () => {
    const wrong = await t.api.post('/auth/token', { body: { email: t.legacyUser.email, password: 'not the password' } });
    const unknown = await t.api.post('/auth/token', { body: { email: uniqueEmail('nobody'), password: t.legacyUser.password } });
    assertError(wrong, 401);
    assertError(unknown, 401);
    assert.equal(wrong.body.message, unknown.body.message, 'no hint whether the account exists');
    assert.ok(!('authToken' in wrong.body));
  });

  it('the password is case-sensitive and compared in full', async () => {
    assertError(await t.api.post('/auth/token', { body: { email: t.legacyUser.email, password: t.legacyUser.password.toUpperCase() } }), 401);
    assertError(await t.api.post('/auth/token', { body: { email: t.legacyUser.email, password: `${t.legacyUser.password} ` } }), 401);
    assertError(await t.api.post('/auth/token', { body: { email: t.legacyUser.email, password: t.legacyUser.password.slice(0, -1) } }), 401);
  });

  it('malformed credentials answer 400', async () => {
    const bodies: unknown[] = [{}, { email: t.legacyUser.email }, { password: t.legacyUser.password }, { email: 'nope', password: 'x' }, { email: t.legacyUser.email, password: '' }, { email: t.legacyUser.email, password: 42 }, [], null, 'text'];
    for (const body of bodies) assertError(await t.api.post('/auth/token', { rawBody: JSON.stringify(body) }), 400);
    assertError(await t.api.post('/auth/token', { rawBody: '{"email":' }), 400);
  });

  it('an empty body, with or without a JSON content type, answers 400', async () => {
    assertError(await t.api.post('/auth/token'), 400);
    assertError(await t.api.post('/auth/token', { rawBody: '', contentType: 'application/json' }), 400);
  });

  it('accepts a JSON content type with a charset parameter', async () => {
    const res = await t.api.post('/auth/token', { rawBody: JSON.stringify(credentials()), contentType: 'application/json; charset=utf-8' });
    assertTokenPair(res, true);
  });

  it('a user registered with v3 gets a key pair on the first v1 login, the same one afterwards', async () => {
    const email = uniqueEmail('v3-login');
    const password = 'long enough';
    assert.equal((await t.api.post('/auth/register', { version: 3, body: { email, password } })).status, 200);
    const logins = await Promise.all([1, 2].map(() => t.api.post('/auth/token', { body: { email, password } })));
    for (const login of logins) assertTokenPair(login, true);
    assert.equal(logins[0]!.body.publicKey, logins[1]!.body.publicKey, 'concurrent first logins agree on one key');
    assertLegacyKeyPair(logins[0]!.body.publicKey, logins[0]!.body.privateKey);
    const later = await t.api.post('/auth/token', { body: { email, password } });
    assert.equal(later.body.publicKey, logins[0]!.body.publicKey);
    assert.equal(later.body.privateKey, logins[0]!.body.privateKey);
    const account = await t.api.get('/account', { token: later.body.authToken });
    assert.equal(account.body.publicKey, later.body.publicKey);
  });
});
