import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, createVerifiedUser, type ClaimedLock } from '../helpers/locks.js';
import { createTestClock } from '../helpers/clock.js';
import { startInstanceBeside, startTestService, type TestService } from '../helpers/service.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { eventually, lockReportsRecorded } from '../helpers/wait.js';
import { openStream, type SseStream } from '../events/sse-client.js';
import { certify, execute, signed, unlock, waitUntilOnline } from '../execute/support.js';

/**
 * Issue 31 point 2: the alarms time raises (held open, offline, repeated refused unlocks) and the
 * forced door. The service's clock is the test's: the test moves it, then runs a sweep (what the
 * watch does every ALARM_SWEEP_MS), so nothing waits for real time.
 */
describe('timed alarms', () => {
  const clock = createTestClock();
  let t: TestService;
  let url: string;
  let owner: TestUser;
  const locks: TestLock[] = [];
  const streams: SseStream[] = [];

  before(async () => {
    // No sweep of its own: each test sweeps when it has moved the clock.
    t = await startTestService({ ALARM_SWEEP_MS: '0', CERT_CHECK: 'never' }, { clock });
    url = `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`;
    owner = await createUser(t.api);
  });
  after(async () => {
    for (const stream of streams) stream.close();
    for (const lock of locks) await lock.client.endAsync(true).catch(() => undefined);
    await t.close();
  });

  const sweep = () => t.service.subscribers.sweepAlarms();
  const alarmsOf = async (lockId: string) => {
    const res = await t.api.get(`/device/${lockId}/alarms`, { token: owner.authToken });
    assert.equal(res.status, 200);
    return res.body as { open: Array<{ kind: string; raisedAt: number }>; history: Array<{ kind: string; clearedAt: number }> };
  };
  const openKinds = async (lockId: string) => (await alarmsOf(lockId)).open.map((a) => a.kind).sort();
  const alarmEntries = async (lockId: string) => {
    const rows = await t.service.ctx.db.kysely.selectFrom('audit_entries').select(['type', 'message']).where('lock_id', '=', lockId).where('type', 'like', 'ALARM_%').orderBy('seq').execute();
    return rows.map((row) => `${row.type} ${row.message}`);
  };

  /** A claimed lock online, reporting as the test says (each report recorded before it returns). */
  async function onlineLock(claimed: ClaimedLock, options: { behaviour?: TestLock['behaviour'] } = {}) {
    const lock = await connectTestLock({ url, id: claimed.id, secret: claimed.secret, ...options });
    locks.push(lock);
    let ts = 1;
    const publish = async (kind: 'state' | 'event', body: object) => {
      await lock.client.publishAsync(`locks/${claimed.id}/${kind}`, JSON.stringify({ ts: ts++, ...body }), { qos: 1, retain: kind === 'state' });
      await lockReportsRecorded(t);
    };
    await publish('state', { locked: true, doorOpen: false });
    return {
      lock,
      state: (locked: boolean, doorOpen: boolean) => publish('state', { locked, doorOpen }),
      event: (type: 'DOOR_OPEN' | 'DOOR_CLOSE', forced?: boolean) => publish('event', { type, ...(forced === undefined ? {} : { forced }) }),
    };
  }

  it('raises held open once the door has been open past the threshold, by the service clock, and clears it when the door closes', async () => {
    const claimed = await claimLock(t, owner);
    const stream = await openStream(t.service.url, `/device/events?device=${claimed.id}`, { token: owner.authToken });
    streams.push(stream);
    const door = await onlineLock(claimed);
    await door.state(false, false); // unlocked (by a key: no command)
    await door.state(false, true);
    clock.advance(59);
    await sweep();
    assert.deepEqual(await openKinds(claimed.id), [], 'not before 60 s (the default)');
    clock.advance(1);
    await sweep();
    await sweep(); // a second sweep (or instance) raises nothing twice
    assert.deepEqual(await openKinds(claimed.id), ['held_open']);
    await door.state(true, false);
    assert.deepEqual(await openKinds(claimed.id), []);
    assert.deepEqual(await alarmEntries(claimed.id), ['ALARM_RAISED alarm: door held open (more than 60 s)', 'ALARM_CLEARED alarm cleared: door held open']);
    await eventually(() => stream.events.filter((e) => String(e.data?.type).startsWith('ALARM_')).length === 2, 'both streamed');

    // The lock's own threshold.
    const set = await t.api.put(`/device/${claimed.id}/alarm-settings`, { body: { heldOpenSeconds: 10 }, token: owner.authToken });
    assert.equal(set.status, 200);
    assert.deepEqual({ ...set.body, mail: undefined }, { heldOpenSeconds: 10, offlineSeconds: 600, refusedUnlocks: 5, refusedWindowSeconds: 300, mail: undefined });
    await door.state(false, true);
    clock.advance(10);
    await sweep();
    assert.deepEqual(await openKinds(claimed.id), ['held_open']);
    await door.state(false, false);
    assert.deepEqual(await openKinds(claimed.id), []);
  });

  it('derives a door held open across a restart, and two instances raise it once', async () => {
    const claimed = await claimLock(t, owner);
    const door = await onlineLock(claimed);
    await door.state(false, true);
    clock.advance(61);
    // A second instance (the same database), as a restarted service would be: nothing held in memory.
    const beside = await startInstanceBeside(t);
    try {
      await Promise.all([beside.service.subscribers.sweepAlarms(), sweep()]);
    } finally {
      await beside.close();
    }
    assert.deepEqual(await openKinds(claimed.id), ['held_open']);
    await door.state(false, false);
    await door.state(false, true);
    clock.advance(61);
    // An instance whose watch sweeps by itself (ALARM_SWEEP_MS) raises it with no one asking.
    const sweeping = await startInstanceBeside(t, { alarmSweepMs: 20 });
    try {
      await eventually(async () => ((await openKinds(claimed.id)).includes('held_open') ? true : undefined), 'raised by the watch');
    } finally {
      await sweeping.close();
    }
    assert.equal((await alarmEntries(claimed.id)).length, 3);
  });

  it('raises forced open for a door opened with the bolt thrown (said by the lock, or derived) and clears it when it closes', async () => {
    const claimed = await claimLock(t, owner);
    const door = await onlineLock(claimed);
    await door.event('DOOR_OPEN', true);
    assert.deepEqual(await openKinds(claimed.id), ['forced_open']);
    await door.event('DOOR_CLOSE');
    assert.deepEqual(await openKinds(claimed.id), []);
    // A lock of 1.3 or older says nothing: the door opened while the stored state had the bolt thrown.
    await door.state(true, true);
    assert.deepEqual(await openKinds(claimed.id), ['forced_open']);
    await door.state(true, false);
    // Opened after an unlock: no alarm; and a 1.4 lock saying `forced: false` is believed.
    await door.state(false, false);
    await door.event('DOOR_OPEN');
    await door.event('DOOR_CLOSE');
    await door.state(true, false);
    await door.event('DOOR_OPEN', false);
    assert.deepEqual(await openKinds(claimed.id), []);
    assert.deepEqual((await alarmsOf(claimed.id)).history.map((a) => a.kind), ['forced_open', 'forced_open']);
  });

  it('raises offline once a lock has been offline past its threshold, and clears it when it comes back', async () => {
    const claimed = await claimLock(t, owner);
    const { lock } = await onlineLock(claimed);
    await t.api.put(`/device/${claimed.id}/alarm-settings`, { body: { offlineSeconds: 120 }, token: owner.authToken });
    await lock.powerCut();
    await eventually(async () => ((await t.api.get(`/device/${claimed.id}`, { token: owner.authToken })).body.state?.connected === false ? true : undefined), 'offline');
    clock.advance(119);
    await sweep();
    assert.deepEqual(await openKinds(claimed.id), []);
    clock.advance(1);
    await sweep();
    assert.deepEqual(await openKinds(claimed.id), ['offline']);
    await onlineLock(claimed);
    assert.deepEqual(await openKinds(claimed.id), []);
    assert.deepEqual(await alarmEntries(claimed.id), ['ALARM_RAISED alarm: lock offline (more than 120 s)', 'ALARM_CLEARED alarm cleared: lock offline']);
  });

  it('raises repeated refused unlocks at N within the window, and clears it once the window has passed', async () => {
    const admin = await certify(t, await createVerifiedUser(t));
    const claimed = await claimLock(t, admin);
    await onlineLock(claimed, { behaviour: { kind: 'refuse', error: 'not_enrolled: no' } });
    await waitUntilOnline(t, claimed.id);
    await t.api.put(`/device/${claimed.id}/alarm-settings`, { body: { refusedUnlocks: 3, refusedWindowSeconds: 60 }, token: admin.authToken });
    const kinds = async () => ((await t.api.get(`/device/${claimed.id}/alarms`, { token: admin.authToken })).body as { open: Array<{ kind: string }> }).open.map((a) => a.kind);
    for (let i = 0; i < 2; i++) assert.equal((await execute(t, admin, claimed.id, signed(admin, claimed.id, unlock))).status, 409);
    assert.deepEqual(await kinds(), []);
    clock.advance(61);
    assert.equal((await execute(t, admin, claimed.id, signed(admin, claimed.id, unlock))).status, 409);
    assert.deepEqual(await kinds(), [], 'the first two fell out of the window');
    for (let i = 0; i < 2; i++) assert.equal((await execute(t, admin, claimed.id, signed(admin, claimed.id, unlock))).status, 409);
    assert.deepEqual(await kinds(), ['refused_unlocks']);
    await sweep();
    assert.deepEqual(await kinds(), ['refused_unlocks']);
    clock.advance(61);
    await sweep();
    assert.deepEqual(await kinds(), []);
  });

  it('keeps the settings to admins and within bounds', async () => {
    const claimed = await claimLock(t, owner);
    const stranger = await createUser(t.api);
    assert.equal((await t.api.get(`/device/${claimed.id}/alarm-settings`, { token: stranger.authToken })).status, 404);
    assert.equal((await t.api.put(`/device/${claimed.id}/alarm-settings`, { body: { heldOpenSeconds: 10 }, token: stranger.authToken })).status, 404);
    assert.equal((await t.api.put(`/device/${claimed.id}/alarm-settings`, { body: { heldOpenSeconds: 1 }, token: owner.authToken })).status, 400);
    assert.equal((await t.api.put(`/device/${claimed.id}/alarm-settings`, { body: {}, token: owner.authToken })).status, 400);
    assert.equal((await t.api.put(`/device/${claimed.id}/alarm-settings`, { body: { other: 1 }, token: owner.authToken })).status, 400);
    const { mail, ...thresholds } = (await t.api.get(`/device/${claimed.id}/alarm-settings`, { token: owner.authToken })).body;
    assert.deepEqual(thresholds, { heldOpenSeconds: 60, offlineSeconds: 600, refusedUnlocks: 5, refusedWindowSeconds: 300 });
    assert.ok(Object.values(mail).every((choice) => choice === true), 'every kind mailed by default');
  });
});
