import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { inTransaction } from '../../src/db/transaction.js';
import { AppError } from '../../src/errors/catalogue.js';
import { lockConfig } from '../../src/locks/config.js';
import { addMember, removeMembers } from '../../src/sharing/enrolments.js';
import { findMembership } from '../../src/locks/queries.js';
import { updateLockSettings } from '../../src/locks/settings.js';
import type { LegacyUser, TestUser } from '../helpers/factories.js';
import { auditEntriesOf, claimLock, revokeLock, shareLock, createVerifiedLegacyUser, createVerifiedUser } from '../helpers/locks.js';
import { createTestClock } from '../helpers/clock.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { lockRow } from './support.js';

/** The membership service the signed operations use (ADD_USER, REMOVE_USER, MUTATE_SETTING). */
describe('lock membership service', () => {
  // Alice's access "ends in seconds" below: by this clock, not by however long the test takes.
  const clock = createTestClock();
  let t: TestService;
  let admin: LegacyUser;
  let alice: LegacyUser;
  let bob: TestUser;
  before(async () => {
    t = await startTestService({}, { clock });
    [admin, alice, bob] = await Promise.all([createVerifiedLegacyUser(t), createVerifiedLegacyUser(t), createVerifiedUser(t)]);
  });
  after(() => t.close());

  const run = <T>(work: Parameters<typeof inTransaction<T>>[2]) => inTransaction(t.service.ctx.db, t.service.ctx.logger, work);
  const ctx = () => t.service.ctx;
  const auditSummary = async (lockId: string) => (await auditEntriesOf(t, lockId)).map((e) => [e.type, e.actor_user_id, e.subject_user_id]);
  async function rejects(promise: Promise<unknown>, status: number) {
    await assert.rejects(promise, (err: unknown) => err instanceof AppError && err.status === status);
  }

  it('shares, promotes, updates the window and demotes, auditing each with actor and subject', async () => {
    const { id } = await claimLock(t, admin);
    const a = (input: Partial<Parameters<typeof addMember>[2]>) => run((uow) => addMember(ctx(), uow, { lockId: id, actorUserId: admin.userId, userId: alice.userId, ...input }));
    assert.deepEqual(await a({}), { change: 'LOCK_SHARED' });
    assert.equal((await findMembership(t.service.ctx.db.kysely, id, alice.userId))?.role, 'USER');
    assert.deepEqual(await a({ role: 'ADMIN' }), { change: 'USER_PROMOTED' });
    assert.deepEqual(await a({ role: 'ADMIN', start: 100, end: 200 }), { change: 'WINDOW_UPDATED' });
    const updated = await findMembership(t.service.ctx.db.kysely, id, alice.userId);
    assert.deepEqual([updated?.role, updated?.start, updated?.end], ['ADMIN', 100, 200]);
    assert.deepEqual(await a({}), { change: 'USER_DEMOTED' });

    assert.deepEqual(await auditSummary(id), [
      ['OWNER_ASSIGNED', admin.userId, null],
      ['LOCK_SHARED', admin.userId, alice.userId],
      ['USER_PROMOTED', admin.userId, alice.userId],
      ['LOCK_SHARED', admin.userId, alice.userId],
      ['USER_DEMOTED', admin.userId, alice.userId],
    ]);
    assert.equal((await lockRow(t, id)).config_version, 5);
  });

  it("shows the claim and the sharing in the lock's audit trail (v2) and the member's own trail", async () => {
    const { id } = await claimLock(t, admin);
    await shareLock(t, id, admin, bob.userId, { role: 'ADMIN' });
    await revokeLock(t, id, admin, [bob.userId]);
    const log = await t.api.get(`/device/${id}/log`, { token: admin.authToken, version: 2 });
    assert.equal(log.status, 200);
    assert.deepEqual(
      log.body.map((e: { type: string; user: string; email: string }) => [e.type, e.user, e.email]),
      [
        ['LOCK_REVOKED', admin.userId, admin.email],
        ['LOCK_SHARED', admin.userId, admin.email],
        ['OWNER_ASSIGNED', admin.userId, admin.email],
      ],
    );
    const own = await t.api.get(`/user/${bob.userId}/log`, { token: bob.authToken, version: 2 });
    assert.equal(own.status, 200);
    assert.deepEqual(
      own.body.filter((e: { deviceId: string }) => e.deviceId === id).map((e: { type: string; issuer: { userId: string }; subject?: { userId: string } }) => [e.type, e.issuer.userId, e.subject?.userId]),
      [
        ['LOCK_REVOKED', admin.userId, bob.userId],
        ['LOCK_SHARED', admin.userId, bob.userId],
      ],
    );
  });

  it('publishes lock-config once per committed change, never for a refused one', async () => {
    const { id } = await claimLock(t, admin);
    const seen: unknown[] = [];
    const off = t.service.ctx.bus.subscribe('lock-config', (m) => seen.push(m));
    try {
      await shareLock(t, id, admin, alice.userId);
      await rejects(shareLock(t, id, alice, bob.userId), 403);
    } finally {
      off();
    }
    assert.deepEqual(seen, [{ lockId: id }]);
  });

  it('refuses ADD_USER from a USER (403), a non-member (404), for an unknown user (404) and a bad window (400)', async () => {
    const { id } = await claimLock(t, admin);
    await shareLock(t, id, admin, alice.userId);
    await rejects(shareLock(t, id, alice, bob.userId), 403);
    await rejects(shareLock(t, id, bob, bob.userId), 404);
    await rejects(shareLock(t, id, admin, '00000000-0000-7000-8000-000000000000'), 404);
    await rejects(shareLock(t, id, admin, bob.userId, { start: 200, end: 100 }), 400);
    await rejects(shareLock(t, '00000000-0000-7000-8000-000000000000', admin, bob.userId), 404);
    assert.equal(await findMembership(t.service.ctx.db.kysely, id, bob.userId), undefined);
  });

  it('lets an ADMIN revoke others and anyone leave, auditing LOCK_REVOKED', async () => {
    const { id } = await claimLock(t, admin);
    await shareLock(t, id, admin, alice.userId);
    await shareLock(t, id, admin, bob.userId);
    await rejects(revokeLock(t, id, alice, [bob.userId]), 403);
    await revokeLock(t, id, alice, [alice.userId]);
    await revokeLock(t, id, admin, [bob.userId, '00000000-0000-7000-8000-000000000000']);
    await rejects(revokeLock(t, id, admin, [bob.userId]), 404);
    const members = await t.service.ctx.db.kysely.selectFrom('lock_members').select('user_id').where('lock_id', '=', id).execute();
    assert.deepEqual(members, [{ user_id: admin.userId }]);
    const revoked = (await auditSummary(id)).filter(([type]) => type === 'LOCK_REVOKED');
    assert.deepEqual(revoked, [
      ['LOCK_REVOKED', alice.userId, alice.userId],
      ['LOCK_REVOKED', admin.userId, bob.userId],
    ]);
    assert.equal((await t.api.get(`/device/${id}`, { token: bob.authToken })).status, 404);
  });

  it('keeps the last ADMIN while others remain (409), also against demotion', async () => {
    const { id } = await claimLock(t, admin);
    await shareLock(t, id, admin, alice.userId);
    await rejects(revokeLock(t, id, admin, [admin.userId]), 409);
    await rejects(shareLock(t, id, admin, admin.userId, { role: 'USER' }), 409);
    assert.equal((await findMembership(t.service.ctx.db.kysely, id, admin.userId))?.role, 'ADMIN');
    // With a second ADMIN the first may go.
    await shareLock(t, id, admin, alice.userId, { role: 'ADMIN' });
    await revokeLock(t, id, admin, [admin.userId]);
    assert.equal((await lockRow(t, id)).owner_user_id, null);
  });

  it('counts only lasting ADMINs for that rule: one whose window ends is no successor', async () => {
    const { id } = await claimLock(t, admin);
    await shareLock(t, id, admin, bob.userId);
    await shareLock(t, id, admin, alice.userId, { role: 'ADMIN', end: clock.now() + 5 });
    // Alice's access ends in seconds: the owner may neither step down nor leave.
    await rejects(shareLock(t, id, admin, admin.userId, { role: 'USER' }), 409);
    await rejects(revokeLock(t, id, admin, [admin.userId]), 409);
    // Nor may Alice lift her own end to become the successor.
    await rejects(shareLock(t, id, alice, alice.userId, { role: 'ADMIN', end: null }), 403);
    // Alice, who is not a lasting ADMIN, may leave.
    await revokeLock(t, id, alice, [alice.userId]);
    assert.equal((await findMembership(t.service.ctx.db.kysely, id, admin.userId))?.role, 'ADMIN');
  });

  it('lets no member change their own access window, an ADMIN whose access ends included', async () => {
    const { id } = await claimLock(t, admin);
    const end = clock.now() + 3600;
    await shareLock(t, id, admin, alice.userId, { role: 'ADMIN', end });
    await rejects(shareLock(t, id, alice, alice.userId, { role: 'ADMIN', end: null }), 403);
    // Nor by stepping down with a wider window.
    await rejects(shareLock(t, id, alice, alice.userId, { role: 'USER', end: null }), 403);
    assert.equal((await findMembership(t.service.ctx.db.kysely, id, alice.userId))?.end, end);
    // Stepping down with the same window stays open.
    await shareLock(t, id, alice, alice.userId, { role: 'USER', end });
    assert.equal((await findMembership(t.service.ctx.db.kysely, id, alice.userId))?.role, 'USER');
  });

  it('lets only one of two ADMINs leaving at once go while a USER remains', async () => {
    const { id } = await claimLock(t, admin);
    await shareLock(t, id, admin, alice.userId, { role: 'ADMIN' });
    await shareLock(t, id, admin, bob.userId);
    const results = await Promise.allSettled([revokeLock(t, id, admin, [admin.userId]), revokeLock(t, id, alice, [alice.userId])]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const failure = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal((failure.reason as AppError).status, 409);
    const admins = await t.service.ctx.db.kysely.selectFrom('lock_members').select('user_id').where('lock_id', '=', id).where('role', '=', 'ADMIN').execute();
    assert.equal(admins.length, 1);
  });

  it('returns a lock whose only member leaves to unclaimed: its registration key claims it again, audited (shared decisions §8)', async () => {
    const claimed = await claimLock(t, admin);
    const window = { start: '09:00', end: '17:00', timezone: 'Europe/Paris', days: ['MONDAY' as const] };
    await run((uow) => updateLockSettings(ctx(), uow, { lockId: claimed.id, actorUserId: admin.userId, unlockBetween: window }));
    const result = await run((uow) => removeMembers(ctx(), uow, { lockId: claimed.id, actorUserId: admin.userId, userIds: [admin.userId] }));
    assert.deepEqual(result, { removed: [admin.userId], lockBecameUnowned: true });
    const row = await lockRow(t, claimed.id);
    assert.deepEqual([row.owner_user_id, row.claimed_at, row.unlock_between], [null, null, null], "unclaimed, without the former owner's settings");
    assert.deepEqual((await lockConfig(t.service.ctx.db.kysely, claimed.id))?.users, []);
    assert.equal((await t.api.get(`/device/${claimed.id}`, { token: admin.authToken })).status, 404, 'the one who left is no member');

    const again = await t.api.post('/device', { token: alice.authToken, body: { key: claimed.registrationKey, name: 'again' } });
    assert.equal(again.status, 200);
    assert.equal(again.body.name, 'again');
    assert.equal(again.body.settings.unlockBetweenWindow, null);
    const entries = await auditEntriesOf(t, claimed.id);
    const left = entries.find((e) => e.type === 'LOCK_REVOKED')!;
    assert.deepEqual([left.actor_user_id, left.subject_user_id], [admin.userId, admin.userId]);
    assert.match(left.message, /unclaimed/);
    assert.deepEqual(entries.filter((e) => e.type === 'OWNER_ASSIGNED').map((e) => e.actor_user_id), [admin.userId, alice.userId]);
    const twice = await t.api.post('/device', { token: bob.authToken, body: { key: claimed.registrationKey, name: 'twice' } });
    assert.equal(twice.status, 409, 'claimed again, the key is spent again');
  });

  it('updates the on-lock settings, validating them', async () => {
    const { id } = await claimLock(t, admin);
    const window = { start: '09:00', end: '17:00', timezone: 'Europe/Paris', days: ['MONDAY' as const, 'FRIDAY' as const] };
    await run((uow) => updateLockSettings(ctx(), uow, { lockId: id, actorUserId: admin.userId, unlockDuration: 12, unlockBetween: window }));
    let lock = (await t.api.get(`/device/${id}`, { token: admin.authToken })).body;
    assert.equal(lock.unlockTime, 12);
    assert.equal(lock.settings.unlockTime, 12);
    assert.equal(lock.state.duration, 12);
    assert.deepEqual(lock.settings.unlockBetweenWindow, { ...window, exceptions: [] });

    await run((uow) => updateLockSettings(ctx(), uow, { lockId: id, unlockBetween: null }));
    lock = (await t.api.get(`/device/${id}`, { token: admin.authToken })).body;
    assert.equal(lock.settings.unlockBetweenWindow, null);
    assert.equal(lock.unlockTime, 12);

    await shareLock(t, id, admin, alice.userId);
    await rejects(run((uow) => updateLockSettings(ctx(), uow, { lockId: id, actorUserId: alice.userId, unlockDuration: 3 })), 403);
    await rejects(run((uow) => updateLockSettings(ctx(), uow, { lockId: id, unlockDuration: 0 })), 400);
    await rejects(run((uow) => updateLockSettings(ctx(), uow, { lockId: id, unlockDuration: 2.5 })), 400);
    await rejects(run((uow) => updateLockSettings(ctx(), uow, { lockId: id, unlockBetween: { ...window, timezone: 'Nowhere/Town' } as never })), 400);
    await rejects(run((uow) => updateLockSettings(ctx(), uow, { lockId: id })), 400);
  });

  it('builds the lock config the lock link publishes', async () => {
    const v3Email = `v3-${Date.now()}@example.com`;
    const v3 = await t.api.post('/auth/register', { version: 3, body: { email: v3Email, password: 'correct horse battery' } });
    assert.equal(v3.status, 200);
    const v3UserId = JSON.parse(Buffer.from(v3.body.authToken.split('.')[1], 'base64url').toString()).sub as string;
    const { id } = await claimLock(t, admin);
    await shareLock(t, id, admin, alice.userId, { role: 'USER', start: 10, end: 20 });
    await shareLock(t, id, admin, v3UserId);
    const config = await lockConfig(t.service.ctx.db.kysely, id);
    assert.ok(config);
    assert.equal(config.version, 3);
    assert.equal(config.unlockDuration, 5);
    assert.equal(config.unlockBetween, null);
    const users = Object.fromEntries(config.users.map((u) => [u.userId, u]));
    assert.deepEqual(users[admin.userId], { userId: admin.userId, publicKey: admin.publicKey, role: 'ADMIN', start: null, end: null });
    assert.deepEqual(users[alice.userId], { userId: alice.userId, publicKey: alice.publicKey, role: 'USER', start: 10, end: 20 });
    assert.deepEqual(users[v3UserId], { userId: v3UserId, publicKey: null, role: 'USER', start: null, end: null });
    assert.equal(await lockConfig(t.service.ctx.db.kysely, '00000000-0000-7000-8000-000000000000'), undefined);

    // A v1 login gives the v3 user a legacy key: the lock must learn it to check their RS256 tokens.
    const login = await t.api.post('/auth/token', { body: { email: v3Email, password: 'correct horse battery' } });
    assert.equal(login.status, 200);
    const after = await lockConfig(t.service.ctx.db.kysely, id);
    assert.equal(after?.version, 4);
    assert.equal(after?.users.find((u) => u.userId === v3UserId)?.publicKey, login.body.publicKey);
  });
});
