import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AppContext } from '../../src/context.js';
import { newId } from '../../src/crypto/random.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { lockWithMembers, recordAt } from './helpers.js';

describe('GET /device/{lockId}/log', () => {
  let t: TestService;
  let ctx: AppContext;
  let admin: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let formerAdmin: TestUser;
  let lockId: string;

  before(async () => {
    t = await startTestService();
    ctx = t.service.ctx;
    [admin, member, stranger, formerAdmin] = await Promise.all([createUser(t.api), createUser(t.api), createUser(t.api), createUser(t.api)]);
    lockId = await lockWithMembers(t, { [admin.userId]: 'ADMIN', [member.userId]: 'USER', [formerAdmin.userId]: { role: 'ADMIN', end: ctx.now() - 60 } });
    // One entry of every kind, a second apart, oldest first.
    await recordAt(ctx, 1000, { lockId, type: 'OWNER_ASSIGNED', actorUserId: admin.userId });
    await recordAt(ctx, 1001, { lockId, type: 'LOCK_SHARED', actorUserId: admin.userId, subjectUserId: member.userId, details: { role: 'USER' } });
    await recordAt(ctx, 1002, { lockId, type: 'DEVICE_CONNECTED', actorUserId: null });
    await recordAt(ctx, 1003, { lockId, type: 'DOOR_UNLOCK', actorUserId: member.userId });
    await recordAt(ctx, 1004, { lockId, type: 'DOOR_UNLOCK', actorUserId: member.userId, rejected: true, message: 'outside permitted times' });
    await recordAt(ctx, 1005, { lockId, type: 'USER_PROMOTED', actorUserId: admin.userId, subjectUserId: member.userId });
    await recordAt(ctx, 1006, { lockId, type: 'DOOR_LOCK', actorUserId: member.userId, message: 'locked from the app' });
    // Another lock's entries never leak into this one's log.
    const other = await lockWithMembers(t, { [stranger.userId]: 'ADMIN' });
    await recordAt(ctx, 1003.5, { lockId: other, type: 'DOOR_UNLOCK', actorUserId: stranger.userId });
  });
  after(() => t?.close());

  const log = (query = '', options: { version?: number; token?: string } = {}) =>
    t.api.get(`/device/${lockId}/log${query}`, { token: options.token ?? admin.authToken, version: options.version });

  it('v1 lists only the v1 types, newest first, with exactly the v1 fields', async () => {
    const res = await log();
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.map((e: { type: string }) => e.type),
      ['DOOR_LOCK', 'DOOR_UNLOCK', 'DOOR_UNLOCK', 'DEVICE_CONNECTED', 'OWNER_ASSIGNED'],
    );
    assert.deepEqual(res.body[0], { timestamp: 1006, type: 'DOOR_LOCK', user: member.userId, message: 'locked from the app' });
    assert.deepEqual(res.body[3], { timestamp: 1002, type: 'DEVICE_CONNECTED', user: null, message: 'lock connected' });
  });

  it('shows a refused attempt with a message saying why', async () => {
    const res = await log();
    assert.deepEqual(res.body[1], { timestamp: 1004, type: 'DOOR_UNLOCK', user: member.userId, message: 'unlock refused: outside permitted times' });
  });

  it('v2 lists every type and carries the actor’s email and display name', async () => {
    const res = await log('', { version: 2 });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.map((e: { type: string }) => e.type),
      ['DOOR_LOCK', 'USER_PROMOTED', 'DOOR_UNLOCK', 'DOOR_UNLOCK', 'DEVICE_CONNECTED', 'LOCK_SHARED', 'OWNER_ASSIGNED'],
    );
    assert.deepEqual(res.body[1], {
      timestamp: 1005, type: 'USER_PROMOTED', user: admin.userId, email: admin.email, displayName: admin.displayName, message: 'user promoted to administrator',
      deviceId: lockId,
      issuer: { userId: admin.userId, email: admin.email, displayName: admin.displayName, ip: null },
      subject: { userId: member.userId, email: member.email, displayName: member.displayName, ip: null },
      rejected: false,
      rejectionReason: null,
      userAgent: null,
    });
    assert.deepEqual(res.body[4], {
      timestamp: 1002, type: 'DEVICE_CONNECTED', user: null, email: null, displayName: null, message: 'lock connected',
      deviceId: lockId, issuer: { userId: lockId, email: null, displayName: null, ip: null }, subject: null, rejected: false, rejectionReason: null, userAgent: null,
    });
  });

  it('a versioned Accept beside application/json still selects v2; v3 falls back to v2', async () => {
    const both = await t.api.get(`/device/${lockId}/log`, { token: admin.authToken, accept: 'application/json, application/vnd.doordeck.api-v2+json' });
    assert.equal(both.body.length, 7);
    const v3 = await log('', { version: 3 });
    assert.equal(v3.body.length, 7);
    assert.equal(v3.body[0].email, member.email);
  });

  it('bounds by start and end (inclusive) and by limit', async () => {
    const window = await log('?start=1001&end=1004', { version: 2 });
    assert.deepEqual(window.body.map((e: { timestamp: number }) => e.timestamp), [1004, 1003, 1002, 1001]);
    const fromStart = await log('?start=1005', { version: 2 });
    assert.deepEqual(fromStart.body.map((e: { timestamp: number }) => e.timestamp), [1006, 1005]);
    const untilEnd = await log('?end=1000.5');
    assert.deepEqual(untilEnd.body.map((e: { timestamp: number }) => e.timestamp), [1000]);
    const limited = await log('?limit=2', { version: 2 });
    assert.deepEqual(limited.body.map((e: { timestamp: number }) => e.timestamp), [1006, 1005]);
    const v1Limited = await log('?limit=2&end=1003');
    assert.deepEqual(v1Limited.body.map((e: { timestamp: number }) => e.timestamp), [1003, 1002]);
    const empty = await log('?start=2000');
    assert.deepEqual(empty.body, []);
  });

  it('answers 400 for a malformed limit or bound', async () => {
    assert.equal((await log('?limit=0')).status, 400);
    assert.equal((await log('?limit=abc')).status, 400);
    assert.equal((await log('?start=yesterday')).status, 400);
  });

  it('lowers a limit above 1000 instead of refusing it', async () => {
    const res = await log('?limit=100000', { version: 2 });
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 7);
  });

  it('is 403 for a member who is not an admin', async () => {
    const res = await log('', { token: member.authToken });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 403);
  });

  it('is 403 for an admin whose access window has ended', async () => {
    assert.equal((await log('', { token: formerAdmin.authToken })).status, 403);
  });

  it('is 404 for a non-member, the same as for a lock that does not exist', async () => {
    const notMember = await log('', { token: stranger.authToken });
    const missing = await t.api.get(`/device/${newId()}/log`, { token: admin.authToken });
    assert.equal(notMember.status, 404);
    assert.equal(missing.status, 404);
    assert.deepEqual(notMember.body, missing.body);
  });

  it('is 401 without a token and 404 for a malformed lock id, like the other lock routes', async () => {
    assert.equal((await t.api.get(`/device/${lockId}/log`)).status, 401);
    assert.equal((await t.api.get('/device/not-a-uuid/log', { token: admin.authToken })).status, 404);
  });

  it('takes the lock id in upper case too (UUIDs are case-insensitive)', async () => {
    const res = await t.api.get(`/device/${lockId.toUpperCase()}/log`, { token: admin.authToken });
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 5);
  });

  it('answers with and without a trailing slash', async () => {
    const res = await t.api.get(`/device/${lockId}/log/`, { token: admin.authToken });
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 5);
  });
});
