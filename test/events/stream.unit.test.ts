import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import type { AuditFeed, FeedSubscriber } from '../../src/events/feed.js';
import { withoutOthersEmails } from '../../src/events/privacy.js';
import { EventStream } from '../../src/events/stream.js';

/** A feed that records who is subscribed and which locks were asked for. */
function fakeFeed() {
  const subscribed = new Map<string, Set<FeedSubscriber>>();
  const notified: string[] = [];
  const feed = {
    add: (lockId: string, s: FeedSubscriber) => void (subscribed.get(lockId) ?? subscribed.set(lockId, new Set()).get(lockId)!).add(s),
    remove: (lockId: string, s: FeedSubscriber) => void subscribed.get(lockId)?.delete(s),
    notify: (lockId: string) => void notified.push(lockId),
  };
  const count = () => [...subscribed.values()].reduce((n, set) => n + set.size, 0);
  return { feed: feed as unknown as AuditFeed, count, notified };
}

function fakeResponse(destroyed: boolean) {
  const writes: string[] = [];
  let ended = false;
  const raw = {
    destroyed,
    writableLength: 0,
    on: () => raw,
    write: (text: string) => void writes.push(text),
    end: () => void (ended = true),
    destroy: () => void (ended = true),
  };
  return { raw: raw as unknown as ServerResponse, writes, ended: () => ended };
}

function openStream(destroyed: boolean, onClose: (s: EventStream) => void = () => undefined, accessEndsAt = new Map<string, number | null>([['a', null], ['b', null]]), now = () => 1000) {
  const { feed, count, notified } = fakeFeed();
  const response = fakeResponse(destroyed);
  const stream = new EventStream(response.raw, feed, {
    userId: 'u1',
    lockIds: ['a', 'b'],
    cursor: new Map([['a', 0], ['b', 0]]),
    accessEndsAt,
    now,
    heartbeatMs: 10,
    maxBufferedBytes: 1024,
    adminOf: new Set<string>(),
    access: () => Promise.resolve({ endsAt: null, admin: false }),
    stillSignedIn: () => Promise.resolve(true),
    applicationId: null,
    onClose,
  });
  stream.start();
  return { stream, count, notified, response };
}

describe('EventStream', () => {
  it('closes at once, unsubscribed and without heartbeats, when the client hung up while it was being opened', (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    let closed = 0;
    const { count, notified, response } = openStream(true, () => void (closed += 1));
    t.mock.timers.tick(100);
    assert.equal(count(), 0);
    assert.deepEqual(notified, []);
    assert.deepEqual(response.writes, []);
    assert.equal(closed, 1);
  });

  it('stays subscribed and sends heartbeats while the client is connected', (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const { stream, count, notified, response } = openStream(false);
    t.mock.timers.tick(25);
    assert.equal(count(), 2);
    assert.deepEqual(notified, ['a', 'b']);
    assert.deepEqual(response.writes, [': keep-alive\n\n', ': keep-alive\n\n']);
    stream.close();
    t.mock.timers.tick(100);
    assert.equal(count(), 0);
    assert.equal(response.writes.length, 2);
    assert.equal(response.ended(), true);
  });

  it('ends when the first access window among its locks ends, and not before', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let clock = 1000;
    let closed = 0;
    const { response } = openStream(false, () => void (closed += 1), new Map([['a', 1010], ['b', null]]), () => clock);
    clock = 1009.9;
    t.mock.timers.tick(9_900);
    assert.equal(closed, 0);
    clock = 1010;
    t.mock.timers.tick(100);
    assert.equal(closed, 1);
    assert.equal(response.ended(), true);
  });

  it('waits out an end beyond the longest timer in several steps', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const maxTimerMs = 2 ** 31 - 1;
    let clock = 0;
    let closed = 0;
    openStream(false, () => void (closed += 1), new Map([['a', 30 * 86_400], ['b', null]]), () => clock);
    clock = maxTimerMs / 1000;
    t.mock.timers.tick(maxTimerMs);
    assert.equal(closed, 0, 'rescheduled, not closed, after the first ~24.8 days');
    clock = 30 * 86_400;
    t.mock.timers.tick(30 * 86_400_000 - maxTimerMs);
    assert.equal(closed, 1);
  });
});

describe('withoutOthersEmails', () => {
  it("keeps the viewer's own address and drops everyone else's, at the top level and in issuer and subject", () => {
    const entry = { user: 'admin', email: 'admin@example.com', displayName: 'Ann', issuer: { userId: 'admin', email: 'admin@example.com' }, subject: { userId: 'me', email: 'me@example.com' } };
    assert.deepEqual(withoutOthersEmails(entry, 'me'), { user: 'admin', displayName: 'Ann', issuer: { userId: 'admin' }, subject: { userId: 'me', email: 'me@example.com' } });
    assert.deepEqual(withoutOthersEmails(entry, 'admin'), { ...entry, subject: { userId: 'me' } });
    assert.equal(entry.email, 'admin@example.com', 'the presented entry itself is left alone');
  });
});
