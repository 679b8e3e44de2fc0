import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { lockConfig } from '../../src/locks/config.js';
import { assertError, messagesTo, verificationCode } from '../accounts/support.js';
import { certify, execute, signed, type Signer } from '../execute/support.js';
import { createUser, uniqueEmail, type TestUser } from '../helpers/factories.js';
import { auditEntriesOf, claimLock, verifyEmailDirectly } from '../helpers/locks.js';
import { LockUserModel, assertMatchesModel } from '../helpers/sdk-models.js';
import { sdkRequest } from '../helpers/sdk-wire.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

/**
 * Issue 15, items 1 and 2, as an outsider would try them: anyone can register someone else's
 * address; a share found by that address must not reach them, and the mailbox's owner clicking
 * the link must not hand it to them either.
 */
describe('shares to accounts whose email is not verified are held', () => {
  let t: TestService;
  let sink: SmtpSink;
  let admin: Signer;
  before(async () => {
    sink = await startSmtpSink();
    t = await startTestService({ CERT_CHECK: 'never', SMTP_URL: sink.url });
    const user = await createUser(t.api);
    await verifyEmailDirectly(t, user.userId);
    admin = await certify(t, user);
  });
  after(async () => {
    await t?.close();
    await sink?.close();
  });

  /** Registers `email` as whoever types it, and has the admin share a fresh lock with it, found by email, with a signed ADD_USER. */
  async function registeredAndShared(email: string, displayName = 'Mallory'): Promise<{ lockId: string; registrant: TestUser }> {
    const registrant = await createUser(t.api, { email, displayName });
    const lock = await claimLock(t, admin);
    const found = await t.api.post(`/share/invite/${encodeURIComponent(email)}`, { token: admin.authToken });
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.id, registrant.userId, 'the lookup answers the registered account');
    const share = await execute(t, admin, lock.id, signed(admin, lock.id, { type: 'ADD_USER', user: registrant.userId, publicKey: registrant.key.publicKeyBase64 }));
    assert.equal(share.status, 200, share.text);
    return { lockId: lock.id, registrant };
  }

  async function hasNoAccess(user: TestUser, lockId: string): Promise<void> {
    const list = await t.api.get('/device', { token: user.authToken });
    assert.equal(list.status, 200, list.text);
    assert.ok(!list.body.some((lock: { id: string }) => lock.id === lockId), 'the lock is not listed');
    assertError(await t.api.get(`/device/${lockId}`, { token: user.authToken }), 404);
    const config = await lockConfig(t.service.ctx.db.kysely, lockId);
    assert.ok(!JSON.stringify(config).includes(user.userId), 'the lock does not know them');
  }

  async function usersList(lockId: string): Promise<Map<string, { pending: boolean; role: string }>> {
    const res = await t.api.get(`/device/${lockId}/users`, { token: admin.authToken });
    assert.equal(res.status, 200, res.text);
    return new Map(res.body.map((u: { userId: string; pending: boolean; role: string }) => [u.userId, u]));
  }

  it('an address registered by someone else gets no door: held, shown pending, and the owner clicking the link does not release it', async () => {
    const victim = uniqueEmail('victim');
    const { lockId, registrant: mallory } = await registeredAndShared(victim);
    await hasNoAccess(mallory, lockId);

    const users = await usersList(lockId);
    assert.equal(users.get(mallory.userId)?.pending, true);
    assert.equal(users.get(admin.userId)?.pending, false);
    const audit = (await auditEntriesOf(t, lockId)).filter((e) => e.subject_user_id === mallory.userId);
    assert.deepEqual(audit.map((e) => [e.type, e.actor_user_id, e.message]), [['LOCK_SHARED', admin.userId, 'held until the email is verified']]);

    // The victim clicks the link in their mailbox, not signed in (or signed in as someone else).
    const { code } = await verificationCode(sink, victim);
    const anonymous = await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`);
    assertError(anonymous, 403);
    assert.equal(anonymous.body.error, 'sign_in_required');
    assert.equal((await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`, { token: admin.authToken })).body.error, 'sign_in_required');
    // Mail scanners and old links open it with GET: that verifies nothing.
    const opened = await t.api.get(`/account/email/verify?code=${encodeURIComponent(code)}`, { accept: 'text/html' });
    assert.equal(opened.status, 303);
    assert.equal(opened.headers.get('location'), `/console/verify?code=${encodeURIComponent(code)}`);

    await hasNoAccess(mallory, lockId);
    assert.equal((await t.api.get('/account', { token: mallory.authToken })).body.emailVerified, false);
    assert.equal((await usersList(lockId)).get(mallory.userId)?.pending, true);
  });

  it("GET /user/{id} (the SDK's getLocksForUser) shows a held member to the admin who sees them in the users list, pending", async () => {
    const { lockId, registrant } = await registeredAndShared(uniqueEmail('held-lookup'));
    const res = await sdkRequest(t.api, 'GET', `/user/${registrant.userId}`, { token: admin.authToken });
    assert.equal(res.status, 200, res.text);
    assertMatchesModel(res.body, LockUserModel, 'GET /user/{id}');
    assert.deepEqual(res.body.devices, [{ deviceId: lockId, role: 'USER', start: null, end: null, pending: true }]);
    assert.equal((await usersList(lockId)).get(registrant.userId)?.pending, true, 'the same person, the same state, in both places');
    // Someone who administers none of the locks still learns nothing.
    const stranger = await createUser(t.api);
    assertError(await sdkRequest(t.api, 'GET', `/user/${registrant.userId}`, { token: stranger.authToken }), 404);
  });

  it('the verification email carries no display name to the unproved address', async () => {
    const email = uniqueEmail('named');
    await createUser(t.api, { email, displayName: 'Click here http://evil.example' });
    const { message } = await verificationCode(sink, email);
    assert.ok(!message.text.includes('evil.example') && !message.html.includes('evil.example'), message.text);
    assert.equal(messagesTo(sink, email).length, 1);
  });

  it('the registrant signed in with the code gets the share: 204, access, the lock knows them', async () => {
    const email = uniqueEmail('owner');
    const { lockId, registrant } = await registeredAndShared(email, 'Owner');
    const { code } = await verificationCode(sink, email);
    // Refused anonymously first: the code is not spent by the refusal.
    assertError(await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`), 403);
    const res = await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`, { token: registrant.authToken });
    assert.equal(res.status, 204, res.text);
    assert.equal((await t.api.get(`/device/${lockId}`, { token: registrant.authToken })).status, 200);
    const config = await lockConfig(t.service.ctx.db.kysely, lockId);
    assert.ok(JSON.stringify(config).includes(registrant.userId), 'the lock knows them now');
    assert.equal((await usersList(lockId)).get(registrant.userId)?.pending, false);
    assertError(await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`, { token: registrant.authToken }), 400);
  });

  it('re-sharing a held user updates the held share; revoking drops it for good', async () => {
    const email = uniqueEmail('reshare');
    const { lockId, registrant } = await registeredAndShared(email);
    const promote = signed(admin, lockId, { type: 'ADD_USER', user: registrant.userId, publicKey: registrant.key.publicKeyBase64, role: 'ADMIN' });
    assert.equal((await execute(t, admin, lockId, promote)).status, 200);
    assert.deepEqual((({ pending, role }) => ({ pending, role }))((await usersList(lockId)).get(registrant.userId)!), { pending: true, role: 'ADMIN' });
    await hasNoAccess(registrant, lockId);

    const revoke = signed(admin, lockId, { type: 'REMOVE_USER', users: [registrant.userId] });
    assert.equal((await execute(t, admin, lockId, revoke)).status, 200);
    assert.equal((await usersList(lockId)).has(registrant.userId), false);
    const last = (await auditEntriesOf(t, lockId)).filter((e) => e.subject_user_id === registrant.userId).at(-1);
    assert.equal(last?.type, 'LOCK_REVOKED');

    const { code } = await verificationCode(sink, email);
    assert.equal((await t.api.put(`/account/email/verify?code=${encodeURIComponent(code)}`)).status, 204, 'nothing held: no sign-in needed');
    await hasNoAccess(registrant, lockId);
  });

  it('a user whose email is verified is shared with at once', async () => {
    const user = await createUser(t.api);
    await verifyEmailDirectly(t, user.userId);
    const lock = await claimLock(t, admin);
    assert.equal((await execute(t, admin, lock.id, signed(admin, lock.id, { type: 'ADD_USER', user: user.userId, publicKey: user.key.publicKeyBase64 }))).status, 200);
    assert.equal((await t.api.get(`/device/${lock.id}`, { token: user.authToken })).status, 200);
    assert.equal((await usersList(lock.id)).get(user.userId)?.pending, false);
  });
});
