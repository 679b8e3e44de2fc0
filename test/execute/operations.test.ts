import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { runSimulator } from '../../src/simulator/run-simulator.js';
import { auditEntriesOf, claimLock, shareLock, createVerifiedUser } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { connectTestLock } from '../helpers/test-lock.js';
import { eventually } from '../helpers/wait.js';
import { certify, execute, signed, unlock, waitUntilOnline, type Signer } from './support.js';

describe('execute: operations', () => {
  let t: TestService;
  let admin: Signer;

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never', LOCK_REPLY_TIMEOUT_MS: '3000' });
    admin = await certify(t, await createVerifiedUser(t));
  });
  after(async () => t?.close());

  const role = async (lockId: string, userId: string) =>
    (await t.service.ctx.db.kysely.selectFrom('lock_members').select('role').where('lock_id', '=', lockId).where('user_id', '=', userId).executeTakeFirst())?.role;
  const mqttUrl = () => `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`;

  it('ADD_USER shares as USER (LOCK_SHARED), then promotes (USER_PROMOTED)', async () => {
    const lock = await claimLock(t, admin);
    const invitee = await createVerifiedUser(t);
    const share = signed(admin, lock.id, { type: 'ADD_USER', user: invitee.userId, publicKey: invitee.key.publicKeyBase64 });
    const res = await execute(t, admin, lock.id, share);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {});
    assert.equal(await role(lock.id, invitee.userId), 'USER');
    const promote = signed(admin, lock.id, { type: 'ADD_USER', user: invitee.userId, publicKey: invitee.key.publicKeyBase64, role: 'ADMIN' });
    assert.equal((await execute(t, admin, lock.id, promote)).status, 200);
    assert.equal(await role(lock.id, invitee.userId), 'ADMIN');
    const entries = (await auditEntriesOf(t, lock.id)).filter((e) => e.subject_user_id === invitee.userId);
    assert.deepEqual(entries.map((e) => [e.type, e.actor_user_id, e.rejected]), [['LOCK_SHARED', admin.userId, 0], ['USER_PROMOTED', admin.userId, 0]]);
    // The invitee can now see the lock.
    assert.equal((await t.api.get(`/device/${lock.id}`, { token: invitee.authToken })).status, 200);
  });

  it('ADD_USER of an unknown user is 404', async () => {
    const lock = await claimLock(t, admin);
    const nobody = crypto.randomUUID();
    const token = signed(admin, lock.id, { type: 'ADD_USER', user: nobody, publicKey: admin.key.publicKeyBase64 });
    assert.equal((await execute(t, admin, lock.id, token)).status, 404);
  });

  it('REMOVE_USER revokes (LOCK_REVOKED), lets a USER leave, and keeps the last admin while others remain (409)', async () => {
    const lock = await claimLock(t, admin);
    const [a, b] = [await certify(t, await createVerifiedUser(t)), await certify(t, await createVerifiedUser(t))];
    await shareLock(t, lock.id, admin, a.userId);
    await shareLock(t, lock.id, admin, b.userId);

    assert.equal((await execute(t, admin, lock.id, signed(admin, lock.id, { type: 'REMOVE_USER', users: [a.userId] }))).status, 200);
    assert.equal(await role(lock.id, a.userId), undefined);
    assert.equal((await execute(t, b, lock.id, signed(b, lock.id, { type: 'REMOVE_USER', users: [b.userId] }))).status, 200);
    assert.equal(await role(lock.id, b.userId), undefined);

    const c = await createVerifiedUser(t);
    await shareLock(t, lock.id, admin, c.userId);
    const lastAdmin = await execute(t, admin, lock.id, signed(admin, lock.id, { type: 'REMOVE_USER', users: [admin.userId] }));
    assert.equal(lastAdmin.status, 409);
    assert.equal(lastAdmin.body.error, 'last_admin');

    const revoked = (await auditEntriesOf(t, lock.id)).filter((e) => e.type === 'LOCK_REVOKED');
    assert.deepEqual(revoked.map((e) => [e.actor_user_id, e.subject_user_id, e.rejected]), [
      [admin.userId, a.userId, 0],
      [b.userId, b.userId, 0],
      [admin.userId, admin.userId, 1],
    ]);
  });

  it('MUTATE_SETTING stores unlockDuration and unlockBetween, and removes the window with null', async () => {
    const lock = await claimLock(t, admin);
    const window = { start: '08:00', end: '18:00', timezone: 'Europe/London', days: ['MONDAY', 'TUESDAY'] };
    const res = await execute(t, admin, lock.id, signed(admin, lock.id, { type: 'MUTATE_SETTING', unlockDuration: 12, unlockBetween: window }));
    assert.equal(res.status, 200, res.text);
    const read = async () => t.service.ctx.db.kysely.selectFrom('locks').select(['unlock_time', 'unlock_between', 'config_version']).where('id', '=', lock.id).executeTakeFirstOrThrow();
    const stored = await read();
    assert.equal(stored.unlock_time, 12);
    assert.deepEqual(JSON.parse(stored.unlock_between!), { ...window, exceptions: [] });
    assert.equal((await execute(t, admin, lock.id, signed(admin, lock.id, { type: 'MUTATE_SETTING', unlockBetween: null }))).status, 200);
    const cleared = await read();
    assert.equal(cleared.unlock_between, null);
    assert.ok(cleared.config_version > stored.config_version);
    assert.equal((await execute(t, admin, lock.id, signed(admin, lock.id, { type: 'MUTATE_SETTING', unlockDuration: 0 }))).status, 400);
  });

  it('MUTATE_LOCK reaches a lock that replies: 200, DOOR_UNLOCK by the caller, state stored', async () => {
    const lock = await claimLock(t, admin);
    const device = await connectTestLock({ url: mqttUrl(), id: lock.id, secret: lock.secret });
    try {
      await waitUntilOnline(t, lock.id);
      const token = signed(admin, lock.id, unlock);
      const res = await execute(t, admin, lock.id, token);
      assert.equal(res.status, 200, res.text);
      assert.equal(device.commands.length, 1);
      assert.equal(device.commands[0]!.token, token);
      const row = await t.service.ctx.db.kysely.selectFrom('locks').select(['locked', 'pending_actor_user_id']).where('id', '=', lock.id).executeTakeFirstOrThrow();
      assert.equal(row.locked, 0);
      assert.equal(row.pending_actor_user_id, admin.userId);
      const unlocks = (await auditEntriesOf(t, lock.id)).filter((e) => e.type === 'DOOR_UNLOCK');
      assert.deepEqual(unlocks.map((e) => [e.actor_user_id, e.rejected]), [[admin.userId, 0]]);
    } finally {
      await device.close();
    }
  });

  it('MUTATE_LOCK: of 20 concurrent copies of one token exactly one reaches the lock', async () => {
    const lock = await claimLock(t, admin);
    const device = await connectTestLock({ url: mqttUrl(), id: lock.id, secret: lock.secret });
    try {
      await waitUntilOnline(t, lock.id);
      const token = signed(admin, lock.id, unlock);
      const statuses = (await Promise.all(Array.from({ length: 20 }, () => execute(t, admin, lock.id, token)))).map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 409).length, 19, statuses.join(','));
      assert.equal(device.commands.length, 1);
    } finally {
      await device.close();
    }
  });

  it('MUTATE_LOCK through the simulator, which verifies the token itself; a USER may unlock too', async () => {
    const lock = await claimLock(t, admin);
    const user = await certify(t, await createVerifiedUser(t));
    await shareLock(t, lock.id, admin, user.userId);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)));
    const simulator = await runSimulator({ id: lock.id, secret: lock.secret, mqttUrl: mqttUrl(), trustedRoot: t.service.ctx.pki.rootCertificate, stdin, stdout });
    try {
      await waitUntilOnline(t, lock.id);
      // The lock acts only once its configuration lists the user.
      const latest = (await t.service.ctx.db.kysely.selectFrom('locks').select('config_version').where('id', '=', lock.id).executeTakeFirstOrThrow()).config_version;
      await eventually(() => simulator.lock.configVersion === latest, 'the config listing the user applied');
      const res = await execute(t, user, lock.id, signed(user, lock.id, unlock));
      assert.equal(res.status, 200, res.text);
      const relock = await execute(t, admin, lock.id, signed(admin, lock.id, { type: 'MUTATE_LOCK', locked: true }));
      assert.equal(relock.status, 200, relock.text);
      // Entries without a user are the lock's own reports (it relocks itself after the unlock time,
      // which a loaded machine can reach before the admin's relock): only the requests are checked.
      const audit = (await auditEntriesOf(t, lock.id)).filter((e) => (e.type === 'DOOR_UNLOCK' || e.type === 'DOOR_LOCK') && e.rejected === 0 && e.actor_user_id !== null);
      assert.deepEqual(audit.map((e) => [e.type, e.actor_user_id]), [['DOOR_UNLOCK', user.userId], ['DOOR_LOCK', admin.userId]]);
    } finally {
      await simulator.close();
    }
  });
});
