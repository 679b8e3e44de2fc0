import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { AppContext } from '../../src/context.js';
import { MAX_RANGE } from '../../src/audit/schemas.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { AuditModel, assertMatchesModel } from '../helpers/sdk-models.js';
import { sdkAccept } from '../helpers/sdk-wire.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { lockWithMembers, recordAt } from './helpers.js';

/**
 * Issue 14, item 4: LockOperationsClient.getLockAuditTrailRequest and getAuditForUserRequest
 * (GET …/log?start=&end=, v2, no limit) byte for byte, every entry checked against BasicAuditResponse.
 */
describe('audit trails, as the official SDK sees them', () => {
  let t: TestService;
  let ctx: AppContext;
  let admin: TestUser;
  let member: TestUser;
  let lockId: string;

  before(async () => {
    t = await startTestService();
    ctx = t.service.ctx;
    [admin, member] = await Promise.all([createUser(t.api), createUser(t.api)]);
    lockId = await lockWithMembers(t, { [admin.userId]: 'ADMIN', [member.userId]: 'USER' });
    await recordAt(ctx, 5000, { lockId, type: 'LOCK_SHARED', actorUserId: admin.userId, subjectUserId: member.userId });
    await recordAt(ctx, 5001, { lockId, type: 'DEVICE_CONNECTED', actorUserId: null });
    await recordAt(ctx, 5002, { lockId, type: 'DOOR_UNLOCK', actorUserId: member.userId, rejected: true, message: 'outside permitted times' });
    for (let i = 0; i < 150; i += 1) await recordAt(ctx, 6000 + i, { lockId, type: 'DOOR_UNLOCK', actorUserId: member.userId });
  });
  after(() => t?.close());

  const sdkLog = (path: string, user: TestUser, start: number, end: number) => t.api.get(`${path}?start=${start}&end=${end}`, { token: user.authToken, accept: sdkAccept(2) });

  it('gives every lock audit v2 entry both field sets; the lock is the issuer of its own events', async () => {
    const res = await sdkLog(`/device/${lockId}/log`, admin, 4000, 5999);
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 3);
    for (const entry of res.body) {
      assertMatchesModel(entry, AuditModel, 'lock audit v2');
      for (const field of ['timestamp', 'type', 'user', 'email', 'displayName', 'message']) assert.ok(field in entry, `spec field ${field}`);
    }
    const [rejected, connected, shared] = res.body;
    assert.deepEqual(connected.issuer, { userId: lockId, email: null, displayName: null, ip: null });
    assert.equal(connected.user, null, "the spec's user stays null");
    assert.equal(connected.subject, null);
    assert.deepEqual(shared.issuer, { userId: admin.userId, email: admin.email, displayName: admin.displayName, ip: null });
    assert.deepEqual(shared.subject, { userId: member.userId, email: member.email, displayName: member.displayName, ip: null });
    assert.equal(shared.deviceId, lockId);
    assert.equal(rejected.rejected, true);
    assert.equal(rejected.rejectionReason, 'unlock refused: outside permitted times');
  });

  it('returns a whole start/end range without limit, not the first 100', async () => {
    const lock = await sdkLog(`/device/${lockId}/log`, admin, 0, 10_000);
    assert.equal(lock.status, 200);
    assert.equal(lock.body.length, 153);
    const user = await sdkLog(`/user/${member.userId}/log`, member, 0, 10_000);
    assert.equal(user.status, 200);
    assert.equal(user.body.length, 152, 'every entry naming the member (not the lock\'s own connection)');
    for (const entry of user.body) assertMatchesModel(entry, AuditModel, 'user audit');
    // An explicit limit still pages.
    assert.equal((await t.api.get(`/device/${lockId}/log?start=0&end=10000&limit=10`, { token: admin.authToken, accept: sdkAccept(2) })).body.length, 10);
  });

  it(`refuses a range of more than ${MAX_RANGE} entries with a clear 400`, async () => {
    const big = await lockWithMembers(t, { [admin.userId]: 'ADMIN' });
    const rows = Array.from({ length: MAX_RANGE + 1 }, (_, i) => ({
      id: randomUUID(), lock_id: big, timestamp: 1000 + i, type: 'DOOR_LOCK', actor_user_id: admin.userId, subject_user_id: null, rejected: 0 as const, message: 'lock locked', details: null, prev_hash: '0', hash: '0',
    }));
    for (let i = 0; i < rows.length; i += 500) await ctx.db.kysely.insertInto('audit_entries').values(rows.slice(i, i + 500)).execute();
    const res = await sdkLog(`/device/${big}/log`, admin, 0, 100_000);
    assert.equal(res.status, 400);
    assert.match(res.body.message, new RegExp(`more than ${MAX_RANGE}`));
    assert.equal((await sdkLog(`/device/${big}/log`, admin, 0, 1000 + MAX_RANGE - 1)).body.length, MAX_RANGE, 'a narrower range is whole');
  });
});
