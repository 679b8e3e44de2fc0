import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AppContext } from '../../src/context.js';
import { newId } from '../../src/crypto/random.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { lockWithMembers, recordAt } from './helpers.js';

interface UserEntry {
  deviceId: string;
  timestamp: number;
  type: string;
  issuer: { userId: string | null };
  subject?: { userId: string; email: string | null };
  rejected: boolean;
}

describe('GET /user/{userId}/log', () => {
  let t: TestService;
  let ctx: AppContext;
  let alice: TestUser; // admin of lock one
  let bob: TestUser; // admin of lock two
  let user: TestUser; // member of both
  let revoked: TestUser; // was on lock one, revoked
  let stranger: TestUser;
  let formerAdmin: TestUser; // ADMIN of lock one whose window has ended
  let lockOne: string;
  let lockTwo: string;

  before(async () => {
    t = await startTestService();
    ctx = t.service.ctx;
    [alice, bob, user, revoked, stranger, formerAdmin] = (await Promise.all(Array.from({ length: 6 }, () => createUser(t.api)))) as [TestUser, TestUser, TestUser, TestUser, TestUser, TestUser];
    lockOne = await lockWithMembers(t, { [alice.userId]: 'ADMIN', [user.userId]: 'USER', [formerAdmin.userId]: { role: 'ADMIN', end: ctx.now() - 60 } });
    lockTwo = await lockWithMembers(t, { [bob.userId]: 'ADMIN', [user.userId]: 'USER' });
    await recordAt(ctx, 2000, { lockId: lockOne, type: 'LOCK_SHARED', actorUserId: alice.userId, subjectUserId: user.userId });
    await recordAt(ctx, 2001, { lockId: lockTwo, type: 'LOCK_SHARED', actorUserId: bob.userId, subjectUserId: user.userId });
    await recordAt(ctx, 2002, { lockId: lockOne, type: 'DOOR_UNLOCK', actorUserId: user.userId });
    await recordAt(ctx, 2003, { lockId: lockOne, type: 'DOOR_UNLOCK', actorUserId: user.userId, rejected: true, message: 'outside permitted times' });
    await recordAt(ctx, 2004, { lockId: lockTwo, type: 'DOOR_UNLOCK', actorUserId: user.userId });
    await recordAt(ctx, 2005, { lockId: lockOne, type: 'DOOR_LOCK', actorUserId: alice.userId });
    await recordAt(ctx, 2006, { lockId: lockOne, type: 'LOCK_SHARED', actorUserId: alice.userId, subjectUserId: revoked.userId });
    await recordAt(ctx, 2007, { lockId: lockOne, type: 'LOCK_REVOKED', actorUserId: alice.userId, subjectUserId: revoked.userId });
  });
  after(() => t?.close());

  const log = (userId: string, token: string, query = '') => t.api.get<UserEntry[]>(`/user/${userId}/log${query}`, { token, version: 2 });
  const stamps = (entries: UserEntry[]) => entries.map((e) => e.timestamp);

  it('shows a user every entry they acted in or were the subject of, on every lock, newest first', async () => {
    const res = await log(user.userId, user.authToken);
    assert.equal(res.status, 200);
    assert.deepEqual(stamps(res.body), [2004, 2003, 2002, 2001, 2000]);
    assert.deepEqual(res.body[1], { deviceId: lockOne, timestamp: 2003, type: 'DOOR_UNLOCK', issuer: { userId: user.userId, ip: null }, rejected: true, rejectionReason: 'unlock refused: outside permitted times', userAgent: null });
    assert.deepEqual(res.body[3], {
      deviceId: lockTwo, timestamp: 2001, type: 'LOCK_SHARED', issuer: { userId: bob.userId, ip: null }, subject: { userId: user.userId, email: user.email }, rejected: false, rejectionReason: null, userAgent: null,
    });
  });

  it('names the subject of the entries where the user is the actor', async () => {
    const res = await log(alice.userId, alice.authToken);
    assert.deepEqual(stamps(res.body), [2007, 2006, 2005, 2000]);
    assert.deepEqual(res.body[0]!.subject, { userId: revoked.userId, email: revoked.email });
    assert.equal(res.body[2]!.subject, undefined);
  });

  it('hides the other member on a lock the user no longer administers (issue 15 §6)', async () => {
    await recordAt(ctx, 2010, { lockId: lockOne, type: 'LOCK_SHARED', actorUserId: formerAdmin.userId, subjectUserId: stranger.userId });
    const res = await log(formerAdmin.userId, formerAdmin.authToken);
    assert.equal(res.status, 200);
    const shared = res.body.find((entry) => entry.timestamp === 2010);
    assert.deepEqual(shared?.subject, { userId: stranger.userId, email: null });
    // Alice still administers lock one: the subjects of her entries keep their addresses.
    const alicesLog = await log(alice.userId, alice.authToken);
    assert.equal(alicesLog.body.find((entry) => entry.timestamp === 2007)?.subject?.email, revoked.email);
  });

  it('shows an admin only the entries on the locks they administer', async () => {
    const byAlice = await log(user.userId, alice.authToken);
    assert.equal(byAlice.status, 200);
    assert.deepEqual(stamps(byAlice.body), [2003, 2002, 2000]);
    assert.ok(byAlice.body.every((e) => e.deviceId === lockOne));
    const byBob = await log(user.userId, bob.authToken);
    assert.deepEqual(stamps(byBob.body), [2004, 2001]);
  });

  it('keeps a revoked user’s history readable by the admins of the lock', async () => {
    const res = await log(revoked.userId, alice.authToken);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.map((e) => e.type), ['LOCK_REVOKED', 'LOCK_SHARED']);
  });

  it('is 404 for anyone else, and for a user who does not exist', async () => {
    const byStranger = await log(user.userId, stranger.authToken);
    assert.equal(byStranger.status, 404);
    // A plain member of a lock administers nothing: the admin's log stays hidden from them.
    assert.equal((await log(alice.userId, user.authToken)).status, 404);
    // An ADMIN whose window has ended administers nothing.
    assert.equal((await log(user.userId, formerAdmin.authToken)).status, 404);
    // Bob administers none of the revoked user's locks.
    assert.equal((await log(revoked.userId, bob.authToken)).status, 404);
    const missing = await log(newId(), alice.authToken);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, byStranger.body);
  });

  it('bounds by start, end and limit', async () => {
    assert.deepEqual(stamps((await log(user.userId, user.authToken, '?start=2001&end=2003')).body), [2003, 2002, 2001]);
    assert.deepEqual(stamps((await log(user.userId, user.authToken, '?limit=2')).body), [2004, 2003]);
    assert.deepEqual(stamps((await log(user.userId, alice.authToken, '?end=2002&limit=1')).body), [2002]);
    assert.equal((await log(user.userId, user.authToken, '?limit=-1')).status, 400);
  });

  it('answers the same shape without a versioned Accept', async () => {
    const res = await t.api.get<UserEntry[]>(`/user/${user.userId}/log`, { token: user.authToken });
    assert.equal(res.status, 200);
    assert.deepEqual(stamps(res.body), [2004, 2003, 2002, 2001, 2000]);
  });

  it('is 401 without a token', async () => {
    assert.equal((await t.api.get(`/user/${user.userId}/log`)).status, 401);
  });

  it('takes the user id in upper case too, and answers 404 for one that is not a UUID', async () => {
    assert.deepEqual(stamps((await log(user.userId.toUpperCase(), user.authToken)).body), [2004, 2003, 2002, 2001, 2000]);
    assert.equal((await log(user.userId.toUpperCase(), alice.authToken, '?limit=1')).status, 200);
    assert.equal((await log('not-a-uuid', user.authToken)).status, 404);
  });
});
