import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyAuditTrail } from '../../src/audit/verify.js';
import { openDatabase } from '../../src/db/database.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock } from '../helpers/locks.js';
import { startInstanceBeside, startTestService, type TestService } from '../helpers/service.js';
import { DisconnectSweep } from '../../src/lock-link/disconnect-sweep.js';
import { recordPresences } from '../../src/lock-link/reports.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { eventually } from '../helpers/wait.js';

/**
 * A restart with the embedded broker (issue 33 point 1): the new service stores every lock
 * disconnected before it serves, and writes their DEVICE_DISCONNECTED entries after
 * (src/lock-link/disconnect-sweep.ts); a lock back before the sweep reaches it has its disconnect
 * audited before its DEVICE_CONNECTED. Every trail stays whole: one entry per change, in order.
 */
describe('a restart with the embedded broker', () => {
  let t: TestService;
  let owner: TestUser;
  const open: TestLock[] = [];
  const closers: Array<() => Promise<void>> = [];

  before(async () => {
    t = await startTestService();
    owner = await createUser(t.api);
  });
  after(async () => {
    for (const lock of open) await lock.client.endAsync(true).catch(() => undefined);
    for (const close of closers) await close();
    await t.close();
  });

  /** The database of the service running now. */
  let db = () => t.service.ctx.db.kysely;
  const typesOf = async (lockId: string) =>
    (await db().selectFrom('audit_entries').select('type').where('lock_id', '=', lockId).where('type', 'in', ['DEVICE_CONNECTED', 'DEVICE_DISCONNECTED']).orderBy('seq').execute()).map((row) => row.type);
  const connectedOf = async (lockId: string) => (await db().selectFrom('locks').select('connected').where('id', '=', lockId).executeTakeFirstOrThrow()).connected;

  it('stores every lock disconnected at once, audits each disconnect once, before the connect of a lock back first, and after a crash', async () => {
    const url = `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`;
    const claimed: Array<Awaited<ReturnType<typeof claimLock>>> = [];
    for (let i = 0; i < 5; i++) claimed.push(await claimLock(t, owner));
    for (const lock of claimed) open.push(await connectTestLock({ url, id: lock.id, secret: lock.secret }));
    await eventually(async () => ((await Promise.all(claimed.map((lock) => connectedOf(lock.id)))).every((c) => c === 1) ? true : undefined), 'every lock connected');

    // The first service goes away (its broker with it), the locks' connections with it.
    await t.service.close();
    // A crash of an earlier start left one lock's disconnect unaudited (migration 0220's mark).
    const crashed = claimed[4]!;
    const between = openDatabase(t.database.config);
    await between.kysely.updateTable('locks').set({ connected: 0, disconnect_unaudited: 1 }).where('id', '=', crashed.id).execute();
    await between.close();

    const restarted = await startInstanceBeside(t);
    closers.push(restarted.close);
    db = () => restarted.service.ctx.db.kysely;
    // Before any entry is written the rows say it: no lock shows connected to its members.
    for (const lock of claimed) assert.equal(await connectedOf(lock.id), 0);
    const shown = await restarted.api.get(`/device/${claimed[0]!.id}`, { token: owner.authToken });
    assert.equal(shown.body.state.connected, false);

    // One lock comes back at once: its disconnect is in its trail before its connect, whichever wrote it.
    const back = claimed[0]!;
    open.push(await connectTestLock({ url: `mqtt://127.0.0.1:${restarted.service.ctx.broker!.port}`, id: back.id, secret: back.secret }));
    await eventually(async () => ((await connectedOf(back.id)) === 1 ? true : undefined), 'the lock back');
    await restarted.service.subscribers.lockReportsRecorded();

    assert.deepEqual(await typesOf(back.id), ['DEVICE_CONNECTED', 'DEVICE_DISCONNECTED', 'DEVICE_CONNECTED']);
    for (const lock of claimed.slice(1, 4)) assert.deepEqual(await typesOf(lock.id), ['DEVICE_CONNECTED', 'DEVICE_DISCONNECTED'], lock.id);
    // Its disconnect written once, by the sweep of this start.
    assert.deepEqual(await typesOf(crashed.id), ['DEVICE_CONNECTED', 'DEVICE_DISCONNECTED']);
    const marked = await db().selectFrom('locks').select('id').where('disconnect_unaudited', '=', 1).execute();
    assert.deepEqual(marked, []);
    assert.equal((await verifyAuditTrail(db())).ok, true);
  });

});

describe('a lock back before the disconnect sweep reaches it', () => {
  let t: TestService;
  let owner: TestUser;
  before(async () => {
    t = await startTestService();
    owner = await createUser(t.api);
  });
  after(() => t.close());

  it('has its owed disconnect audited, then its connect, in the one presence transaction; once', async () => {
    const lock = await claimLock(t, owner);
    const { ctx } = t.service;
    const entries = () => ctx.db.kysely.selectFrom('audit_entries').select(['type', 'timestamp']).where('lock_id', '=', lock.id).where('type', 'like', 'DEVICE_%').orderBy('seq').execute();
    const types = async () => (await entries()).map((row) => row.type);
    // As a start leaves it (src/lock-link/disconnect-sweep.ts), a minute ago.
    const restartedAt = Math.floor(Date.now() / 1000) - 60;
    await ctx.db.kysely.updateTable('locks').set({ connected: 0, presence_changed_at: restartedAt, disconnect_unaudited: 1 }).where('id', '=', lock.id).execute();
    assert.deepEqual([...(await recordPresences(ctx, [{ lockId: lock.id, online: true }], true))], [lock.id]);
    const [disconnected, connected] = await entries();
    assert.deepEqual([disconnected?.type, connected?.type], ['DEVICE_DISCONNECTED', 'DEVICE_CONNECTED']);
    // Dated at the restart, not when it was written: the trail shows the lock offline from then until its return.
    assert.equal(disconnected!.timestamp, restartedAt);
    assert.ok(connected!.timestamp >= restartedAt + 59);
    // Claimed once: nothing owed any more.
    await recordPresences(ctx, [{ lockId: lock.id, online: false }], true);
    await recordPresences(ctx, [{ lockId: lock.id, online: true }], true);
    assert.deepEqual(await types(), ['DEVICE_DISCONNECTED', 'DEVICE_CONNECTED', 'DEVICE_DISCONNECTED', 'DEVICE_CONNECTED']);
    assert.equal((await verifyAuditTrail(ctx.db.kysely, { lockId: lock.id })).ok, true);
  });

  it('a mark a crashed start left is swept by the next start with an external broker too', async () => {
    const lock = await claimLock(t, owner);
    const { ctx } = t.service;
    await ctx.db.kysely.updateTable('locks').set({ connected: 0, disconnect_unaudited: 1 }).where('id', '=', lock.id).execute();
    const sweep = await DisconnectSweep.start(ctx, false);
    assert.equal(sweep.pending, true);
    await sweep.finished();
    assert.equal(sweep.pending, false);
    const types = (await ctx.db.kysely.selectFrom('audit_entries').select('type').where('lock_id', '=', lock.id).where('type', 'like', 'DEVICE_%').execute()).map((row) => row.type);
    assert.deepEqual(types, ['DEVICE_DISCONNECTED']);
    // Nothing else was stored disconnected: that is for a start with the embedded broker only.
    assert.equal((await ctx.db.kysely.selectFrom('locks').select('disconnect_unaudited').where('id', '=', lock.id).executeTakeFirstOrThrow()).disconnect_unaudited, 0);
  });
});
