import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUser, uniqueEmail } from '../helpers/factories.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { sdkRequest } from '../helpers/sdk-wire.js';
import { useService } from '../helpers/service.js';
import { mailSent } from '../helpers/wait.js';

describe('DELETE /account as the SDK sends it (AccountClient.deleteAccountRequest)', () => {
  const t = useService();
  const deleteAccount = (token: string) => sdkRequest(t.api, 'DELETE', '/account', { token });

  it('leaves every lock, ends every session, and the email can be registered again', async () => {
    const admin = await createUser(t.api);
    const user = await createUser(t.api);
    const ownLock = await claimLock(t, user);
    const shared = await claimLock(t, admin);
    await shareLock(t, shared.id, admin, user.userId, { role: 'USER' });
    const second = await t.api.post('/auth/token', { body: { email: user.email, password: user.password } });

    const res = await deleteAccount(user.authToken);
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');

    assert.equal((await sdkRequest(t.api, 'GET', '/account', { token: user.authToken })).status, 401);
    assert.equal((await sdkRequest(t.api, 'GET', '/account', { token: second.body.authToken })).status, 401);
    assert.equal((await sdkRequest(t.api, 'POST', '/auth/token/refresh', { token: user.refreshToken })).status, 401);
    assert.equal((await sdkRequest(t.api, 'POST', '/auth/token', { version: 2, body: { email: user.email, password: user.password } })).status, 401);

    const users = await t.api.get(`/device/${shared.id}/users`, { token: admin.authToken });
    assert.equal(users.status, 200);
    assert.ok(!JSON.stringify(users.body).includes(user.userId), 'the deleted user is no longer enrolled');
    const db = t.service.ctx.db.kysely;
    const lock = await db.selectFrom('locks').select('owner_user_id').where('id', '=', ownLock.id).executeTakeFirstOrThrow();
    assert.equal(lock.owner_user_id, null, 'a lock left by its only member is unowned');
    const revoked = await db.selectFrom('audit_entries').select('type').where('lock_id', '=', shared.id).where('type', '=', 'LOCK_REVOKED').execute();
    assert.equal(revoked.length, 1, 'leaving is audited like REMOVE_USER');

    assert.equal((await t.api.post('/auth/register', { version: 3, body: { email: user.email, password: 'another good password' } })).status, 200);
  });

  it('the last admin of a lock others still use is refused (409 last_admin), and nothing changes', async () => {
    const admin = await createUser(t.api);
    const member = await createUser(t.api);
    const freeLock = await claimLock(t, admin);
    const busyLock = await claimLock(t, admin);
    await shareLock(t, busyLock.id, admin, member.userId, { role: 'USER' });

    const res = await deleteAccount(admin.authToken);
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error, 'last_admin');
    assert.equal((await sdkRequest(t.api, 'GET', '/account', { token: admin.authToken })).status, 200);
    assert.equal((await t.api.get(`/device/${freeLock.id}`, { token: admin.authToken })).status, 200, 'the other lock was not left either');
  });

  it('needs a signed-in caller', async () => {
    assert.equal((await sdkRequest(t.api, 'DELETE', '/account')).status, 401);
  });
});

describe('password reset as the SDK sends it (AccountlessClient.passwordResetRequest / passwordResetVerifyRequest)', () => {
  const t = useService({ withMail: true, env: { RATE_VERIFY_PER_USER: '3' } });
  const initialize = (email: string) => sdkRequest(t.api, 'POST', '/account/password/reset/initialize', { body: { email } });
  const verify = (body: { userId: string; token: string; password: string }) => sdkRequest(t.api, 'POST', '/account/password/reset/verify', { body });

  async function resetMail(email: string): Promise<{ userId: string; token: string }> {
    const mail = await t.sink.waitFor((m) => m.to.includes(email) && /reset/i.test(m.subject));
    const userId = /User id: ([0-9a-f-]{36})/.exec(mail.text)?.[1];
    const token = /Reset token: ([\w-]+)/.exec(mail.text)?.[1];
    assert.ok(userId && token, mail.text);
    assert.ok(mail.text.includes(`/console/reset?userId=${userId}&token=${encodeURIComponent(token)}`), 'the link opens the console\'s reset page');
    return { userId, token };
  }

  it('emails a token; the token sets the password once and ends every session', async () => {
    const user = await createUser(t.api);
    const res = await initialize(user.email);
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');
    const { userId, token } = await resetMail(user.email);
    assert.equal(userId, user.userId);

    assert.equal((await verify({ userId, token: `${token}x`, password: 'a brand new password' })).status, 400);
    const done = await verify({ userId, token, password: 'a brand new password' });
    assert.equal(done.status, 204, done.text);
    assert.equal((await verify({ userId, token, password: 'yet another password' })).status, 400, 'single use');

    assert.equal((await sdkRequest(t.api, 'GET', '/account', { token: user.authToken })).status, 401);
    assert.equal((await sdkRequest(t.api, 'POST', '/auth/token/refresh', { token: user.refreshToken })).status, 401);
    assert.equal((await sdkRequest(t.api, 'POST', '/auth/token', { version: 2, body: { email: user.email, password: user.password } })).status, 401);
    assert.equal((await sdkRequest(t.api, 'POST', '/auth/token', { version: 2, body: { email: user.email, password: 'a brand new password' } })).status, 200);
  });

  it("a token works only for the user it was sent to, and a newer one replaces it", async () => {
    const user = await createUser(t.api);
    const other = await createUser(t.api);
    await initialize(user.email);
    const first = await resetMail(user.email);
    assert.equal((await verify({ userId: other.userId, token: first.token, password: 'a brand new password' })).status, 400);
    t.sink.messages.length = 0;
    await initialize(user.email);
    const second = await resetMail(user.email);
    assert.notEqual(second.token, first.token);
    assert.equal((await verify({ userId: user.userId, token: first.token, password: 'a brand new password' })).status, 400);
    assert.equal((await verify({ userId: user.userId, token: second.token, password: 'a brand new password' })).status, 204);
  });

  it('answers the same 204 for an unknown address, and sends nothing', async () => {
    const unknown = uniqueEmail('nobody');
    const res = await initialize(unknown);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    const known = await createUser(t.api);
    await initialize(known.email);
    await resetMail(known.email);
    assert.ok(!t.sink.messages.some((m) => m.to.includes(unknown)));
  });

  it('limits emails per address silently, still answering 204', async () => {
    const user = await createUser(t.api);
    t.sink.messages.length = 0;
    for (let i = 0; i < 5; i++) assert.equal((await initialize(user.email)).status, 204);
    await resetMail(user.email);
    await mailSent(t);
    assert.equal(t.sink.messages.filter((m) => m.to.includes(user.email)).length, 3, 'RATE_VERIFY_PER_USER=3 emails at most');
  });

  it('refuses a malformed request with a 400', async () => {
    assert.equal((await sdkRequest(t.api, 'POST', '/account/password/reset/initialize', { body: { email: null } })).status, 400);
    assert.equal((await verify({ userId: 'not-a-uuid', token: 'x', password: 'a brand new password' })).status, 400);
    const user = await createUser(t.api);
    assert.equal((await verify({ userId: user.userId, token: 'x', password: 'short' })).status, 400);
  });
});
