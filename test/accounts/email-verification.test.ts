import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { createUser, uniqueEmail } from '../helpers/factories.js';
import { TEST_BASE_URL, useService } from '../helpers/service.js';
import { assertError, messagesTo, verificationCode } from './support.js';

describe('email verification (over a real SMTP server)', () => {
  const t = useService({ withMail: true });

  it('registration sends one email with a link to the base URL holding a long single-use code', async () => {
    const user = await createUser(t.api);
    const { code, message } = await verificationCode(t.sink, user.email);
    assert.equal(messagesTo(t.sink, user.email).length, 1);
    assert.ok(message.subject.length > 0);
    assert.ok(message.text.includes(`${TEST_BASE_URL}/console/verify?code=`));
    assert.ok(message.html.includes('/console/verify?code='));
    assert.ok(Buffer.from(code, 'base64url').length >= 16, 'at least 128 bits');
    assert.ok(!message.text.includes(user.password), 'the password is never mailed');
  });

  it('PUT /account/email/verify marks the email verified, once', async () => {
    const user = await createUser(t.api);
    const { code } = await verificationCode(t.sink, user.email);
    const before = await t.api.get('/account', { token: user.authToken });
    assert.equal(before.body.emailVerified, false);

    const res = await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`);
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');

    const account = await t.api.get('/account', { token: user.authToken });
    assert.equal(account.body.emailVerified, true);
    const login = await t.api.post('/auth/token', { version: 2, body: { email: user.email, password: user.password } });
    assert.equal(decodeJwt(login.body.authToken).email_verified, true, 'new tokens carry the verified flag');

    assertError(await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`), 400);
  });

  it('the old link (GET) verifies nothing: 303 to the console page, which verifies with PUT', async () => {
    const user = await createUser(t.api);
    const { code } = await verificationCode(t.sink, user.email);
    const res = await t.api.get(`/account/email/verify?code=${encodeURIComponent(code)}`, { accept: 'text/html' });
    assert.equal(res.status, 303, res.text);
    assert.equal(res.headers.get('location'), `/console/verify?code=${encodeURIComponent(code)}`);
    assert.equal((await t.api.get('/account', { token: user.authToken })).body.emailVerified, false, 'opening a link (mail scanners do) verifies nothing');
    assert.equal((await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`)).status, 204, 'the code is still good');
  });

  it('needs no authentication and ignores a trailing slash', async () => {
    const user = await createUser(t.api);
    const { code } = await verificationCode(t.sink, user.email);
    const res = await t.api.put(`/account/email/verify/?code=${encodeURIComponent(code)}`, { token: 'not-a-token' });
    assert.equal(res.status, 204, res.text);
  });

  it('refuses unknown, empty, missing and oversize codes with 400', async () => {
    for (const query of ['?code=' + 'A'.repeat(43), '?code=nope', '?code=', '', '?code=' + 'a'.repeat(300), '?code=a&code=b']) {
      assertError(await t.api.put(`/account/email/verify${query}`), 400);
    }
  });

  it('a code verifies only the account it was sent to', async () => {
    const first = await createUser(t.api);
    const second = await createUser(t.api);
    const { code } = await verificationCode(t.sink, first.email);
    assert.equal((await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`)).status, 204);
    assert.equal((await t.api.get('/account', { token: first.authToken })).body.emailVerified, true);
    assert.equal((await t.api.get('/account', { token: second.authToken })).body.emailVerified, false);
  });

  it('POST /account/email/reverify sends a new, different code that works', async () => {
    const user = await createUser(t.api);
    const { code: first } = await verificationCode(t.sink, user.email, 0);
    const res = await t.api.post('/account/email/reverify', { token: user.authToken });
    assert.equal(res.status, 204, res.text);
    const { code: second } = await verificationCode(t.sink, user.email, 1);
    assert.notEqual(second, first);
    assert.equal((await t.api.put(`/account/email/verify?code=${encodeURIComponent(second)}`)).status, 204);
    assert.equal((await t.api.get('/account', { token: user.authToken })).body.emailVerified, true);
  });

  it('reverify accepts a JSON content type with an empty body', async () => {
    const user = await createUser(t.api);
    const res = await t.api.post('/account/email/reverify', { token: user.authToken, rawBody: '', contentType: 'application/json' });
    assert.equal(res.status, 204, res.text);
    await verificationCode(t.sink, user.email, 1);
  });

  it('reverify of a verified email sends nothing', async () => {
    const user = await createUser(t.api);
    const { code } = await verificationCode(t.sink, user.email);
    await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`);
    const res = await t.api.post('/account/email/reverify', { token: user.authToken });
    assert.equal(res.status, 204);
    // The service sends after commit and before answering, so nothing more can still be on its way.
    assert.equal(messagesTo(t.sink, user.email).length, 1);
  });

  it('reverify needs a valid auth token', async () => {
    assertError(await t.api.post('/account/email/reverify'), 401);
    assertError(await t.api.post('/account/email/reverify', { token: 'garbage' }), 401);
  });

  it('registration v3 sends the verification email too', async () => {
    const email = uniqueEmail('v3-mail');
    const res = await t.api.post('/auth/register', { version: 3, body: { email, password: 'long enough' } });
    assert.equal(res.status, 200);
    await verificationCode(t.sink, email);
  });
});
