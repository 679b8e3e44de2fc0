import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordAuditNow } from '../../src/audit/record.js';
import type { AuditType } from '../../src/audit/types.js';
import { createTestClock } from '../helpers/clock.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { eventually, timePassed } from '../helpers/wait.js';
import { claimLock, revokeLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { openStream, type SseStream } from './sse-client.js';

describe('GET /device/events', () => {
  const clock = createTestClock();
  let t: TestService;
  let owner: TestUser;
  const streams: SseStream[] = [];
  const open = async (path: string, token: string, lastEventId?: string) => {
    const stream = await openStream(t.service.url, path, { token, ...(lastEventId === undefined ? {} : { lastEventId }) });
    streams.push(stream);
    return stream;
  };
  const audit = (lockId: string, type: AuditType) => recordAuditNow(t.service.ctx, { lockId, type, actorUserId: null });

  before(async () => {
    t = await startTestService({ SSE_HEARTBEAT_MS: '50' }, { clock });
    owner = await createUser(t.api);
  });
  after(async () => {
    // Shutdown must end open streams itself, or it would hang here.
    await t.close();
    for (const stream of streams) stream.close();
  });

  it('streams each new entry of the listed locks, in order, with the documented shape', async () => {
    const a = await claimLock(t, owner);
    const b = await claimLock(t, owner);
    const stream = await open(`/device/events?device=${a.id}&device=${b.id}`, owner.authToken);
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    await audit(a.id, 'DOOR_OPEN');
    await audit(b.id, 'DOOR_UNLOCK');
    await audit(a.id, 'DOOR_CLOSE');
    const events = await stream.waitFor(3);
    const ofA = events.filter((e) => e.data.deviceId === a.id).map((e) => e.event);
    assert.deepEqual(ofA, ['DOOR_OPEN', 'DOOR_CLOSE']);
    const unlock = events.find((e) => e.event === 'DOOR_UNLOCK')!;
    assert.equal(unlock.data.deviceId, b.id);
    assert.equal(unlock.data.type, 'DOOR_UNLOCK');
    assert.equal(unlock.data.user, null);
    assert.equal(typeof unlock.data.timestamp, 'number');
    assert.equal(typeof unlock.data.message, 'string');
    assert.ok('email' in unlock.data && 'displayName' in unlock.data);
    assert.deepEqual(unlock.data.state, { connected: false });
    assert.match(events[2]!.id, /^\d+\.\d+$/);
    // Heartbeat comments keep the stream alive.
    await eventually(async () => (stream.comments.includes('keep-alive') ? true : undefined), 'a keep-alive comment');
  });

  it('resumes after Last-Event-ID without loss or repetition', async () => {
    const lock = await claimLock(t, owner);
    const first = await open(`/device/events?device=${lock.id}`, owner.authToken);
    await audit(lock.id, 'DOOR_OPEN');
    const [seen] = await first.waitFor(1);
    first.close();
    await audit(lock.id, 'DOOR_CLOSE');
    await audit(lock.id, 'DOOR_LOCK');
    const second = await open(`/device/events?device=${lock.id}`, owner.authToken, seen!.id);
    await audit(lock.id, 'DOOR_UNLOCK');
    const events = await second.waitFor(3);
    assert.deepEqual(events.map((e) => e.event), ['DOOR_CLOSE', 'DOOR_LOCK', 'DOOR_UNLOCK']);
    // A later entry: anything repeated would have come before it.
    await audit(lock.id, 'DOOR_OPEN');
    await eventually(() => second.events.some((e) => e.event === 'DOOR_OPEN'), 'the later entry');
    assert.equal(second.events.length - 1, 3, 'nothing repeated');
    const ids = events.map((e) => Number(e.id));
    assert.ok(ids[0]! > Number(seen!.id) && ids[1]! > ids[0]! && ids[2]! > ids[1]!);

    // The lastEventId query parameter does the same.
    const third = await open(`/device/events?device=${lock.id}&lastEventId=${events[1]!.id}`, owner.authToken);
    const [only] = await third.waitFor(1);
    assert.equal(only!.event, 'DOOR_UNLOCK');
  });

  it('is 404 for a lock the caller is not a member of, 400 without a device', async () => {
    const mine = await claimLock(t, owner);
    const stranger = await createUser(t.api);
    const notMine = await t.api.get(`/device/events?device=${mine.id}`, { token: stranger.authToken, accept: 'text/event-stream' });
    assert.equal(notMine.status, 404);
    const mixed = await t.api.get(`/device/events?device=${mine.id}&device=00000000-0000-7000-8000-000000000000`, { token: owner.authToken, accept: 'text/event-stream' });
    assert.equal(mixed.status, 404);
    const none = await t.api.get('/device/events', { token: owner.authToken, accept: 'text/event-stream' });
    assert.equal(none.status, 400);
    const badCursor = await t.api.get(`/device/events?device=${mine.id}`, { token: owner.authToken, accept: 'text/event-stream', headers: { 'last-event-id': '1.2' } });
    assert.equal(badCursor.status, 400);
    const anonymous = await t.api.get(`/device/events?device=${mine.id}`, { accept: 'text/event-stream' });
    assert.equal(anonymous.status, 401);
  });

  it('ends the stream when the caller is revoked', async () => {
    const lock = await claimLock(t, owner);
    const guest = await createUser(t.api);
    await shareLock(t, lock.id, owner, guest.userId);
    const stream = await open(`/device/events?device=${lock.id}`, guest.authToken);
    await audit(lock.id, 'DOOR_OPEN');
    await stream.waitFor(1);
    await revokeLock(t, lock.id, owner, [guest.userId]);
    await stream.ended;
    assert.deepEqual(stream.events.map((e) => e.event), ['DOOR_OPEN', 'LOCK_REVOKED']);
    await audit(lock.id, 'DOOR_CLOSE');
    const again = await t.api.get(`/device/events?device=${lock.id}`, { token: guest.authToken, accept: 'text/event-stream' });
    assert.equal(again.status, 404);
  });

  it('is 403 while the caller is outside their window, before it starts and after it ends', async () => {
    const lock = await claimLock(t, owner);
    const now = clock.now();
    for (const window of [{ start: now + 3600 }, { end: now - 60 }]) {
      const guest = await createUser(t.api);
      await shareLock(t, lock.id, owner, guest.userId, window);
      const res = await t.api.get(`/device/events?device=${lock.id}`, { token: guest.authToken, accept: 'text/event-stream' });
      assert.equal(res.status, 403, JSON.stringify(window));
    }
  });

  it('ends the stream when the caller’s window ends', async () => {
    const lock = await claimLock(t, owner);
    const guest = await createUser(t.api);
    // The stream checks its end 0.2 s (real time) after it opens, then again each 0.2 s until it has passed.
    await shareLock(t, lock.id, owner, guest.userId, { end: clock.now() + 0.2 });
    const stream = await open(`/device/events?device=${lock.id}`, guest.authToken);
    await audit(lock.id, 'DOOR_OPEN');
    await stream.waitFor(1);
    clock.advance(1);
    await stream.ended;
    assert.deepEqual(stream.events.map((e) => e.event), ['DOOR_OPEN']);
  });

  it('keeps the stream when the caller’s window is extended while it is open', async () => {
    const lock = await claimLock(t, owner);
    const guest = await createUser(t.api);
    await shareLock(t, lock.id, owner, guest.userId, { end: clock.now() + 0.2 });
    const stream = await open(`/device/events?device=${lock.id}`, guest.authToken);
    await shareLock(t, lock.id, owner, guest.userId, { end: null });
    await stream.waitFor(1); // the LOCK_SHARED that extended it
    clock.advance(1);
    // Proves that time passed: the old end's check (due within 0.2 s, real time) has run by now.
    await timePassed(300);
    await audit(lock.id, 'DOOR_CLOSE');
    const events = await stream.waitFor(2);
    assert.deepEqual(events.map((e) => e.event), ['LOCK_SHARED', 'DOOR_CLOSE']);
  });

  it('replays to a USER nothing from before they joined, whatever Last-Event-ID asks for; an ADMIN gets it all', async () => {
    const lock = await claimLock(t, owner);
    await audit(lock.id, 'DOOR_OPEN');
    await audit(lock.id, 'DOOR_CLOSE');
    const guest = await createUser(t.api);
    await shareLock(t, lock.id, owner, guest.userId);
    await audit(lock.id, 'DOOR_LOCK');
    const fromStart = await open(`/device/events?device=${lock.id}`, guest.authToken, '0');
    const replayed = await fromStart.waitFor(2);
    assert.deepEqual(replayed.map((e) => e.event), ['LOCK_SHARED', 'DOOR_LOCK']);
    // A later entry: anything more replayed would have come before it.
    await audit(lock.id, 'DOOR_UNLOCK');
    await eventually(() => fromStart.events.some((e) => e.event === 'DOOR_UNLOCK'), 'the later entry');
    assert.equal(fromStart.events.length - 1, 2, 'nothing from before the guest joined');

    // A position after joining is taken as it is.
    const resumed = await open(`/device/events?device=${lock.id}`, guest.authToken, replayed[0]!.id);
    assert.deepEqual((await resumed.waitFor(1)).map((e) => e.event), ['DOOR_LOCK']);

    const admin = await open(`/device/events?device=${lock.id}`, owner.authToken, '0');
    const all = (await admin.waitFor(5)).map((e) => e.event);
    assert.deepEqual(all.slice(-4), ['DOOR_OPEN', 'DOOR_CLOSE', 'LOCK_SHARED', 'DOOR_LOCK']);
  });

  it('marks a refused attempt as rejected, so it never reads as the act itself', async () => {
    const lock = await claimLock(t, owner);
    const stream = await open(`/device/events?device=${lock.id}`, owner.authToken);
    await recordAuditNow(t.service.ctx, { lockId: lock.id, type: 'DOOR_UNLOCK', actorUserId: owner.userId, rejected: true, message: 'caller address not permitted' });
    await audit(lock.id, 'DOOR_UNLOCK');
    const [refused, done] = await stream.waitFor(2);
    assert.equal(refused!.data.rejected, true);
    assert.match(String(refused!.data.message), /refused/);
    assert.equal(done!.data.rejected, false);
  });
});
