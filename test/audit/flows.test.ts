import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyLockChain } from '../../src/audit/verify.js';
import { createUser } from '../helpers/factories.js';
import { claimLock, revokeLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** The audit trail as the lock features write it: claim, share, promote, demote, revoke. */
describe('audit of a lock’s membership changes', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t?.close());

  it('records each change and shows it to the right readers', async () => {
    const [owner, member] = await Promise.all([createUser(t.api), createUser(t.api)]);
    const { id: lockId } = await claimLock(t, owner);
    await shareLock(t, lockId, owner, member.userId, { role: 'USER' });

    const asUser = await t.api.get(`/device/${lockId}/log`, { token: member.authToken });
    assert.equal(asUser.status, 403, 'a USER may not read the lock log');

    await shareLock(t, lockId, owner, member.userId, { role: 'ADMIN' });
    await shareLock(t, lockId, owner, member.userId, { role: 'USER' });
    await revokeLock(t, lockId, owner, [member.userId]);

    const v1 = await t.api.get(`/device/${lockId}/log`, { token: owner.authToken });
    assert.equal(v1.status, 200);
    assert.deepEqual(v1.body.map((e: { type: string; user: string }) => [e.type, e.user]), [['OWNER_ASSIGNED', owner.userId]]);

    const v2 = await t.api.get(`/device/${lockId}/log`, { token: owner.authToken, version: 2 });
    assert.deepEqual(v2.body.map((e: { type: string }) => e.type), ['LOCK_REVOKED', 'USER_DEMOTED', 'USER_PROMOTED', 'LOCK_SHARED', 'OWNER_ASSIGNED']);
    for (const entry of v2.body) {
      assert.equal(entry.user, owner.userId);
      assert.equal(entry.email, owner.email);
      assert.equal(entry.displayName, owner.displayName);
    }

    assert.equal((await t.api.get(`/device/${lockId}/log`, { token: member.authToken })).status, 404, 'a revoked member no longer sees the lock');

    const expected = ['LOCK_REVOKED', 'USER_DEMOTED', 'USER_PROMOTED', 'LOCK_SHARED'];
    for (const reader of [member, owner]) {
      const res = await t.api.get(`/user/${member.userId}/log`, { token: reader.authToken, version: 2 });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.map((e: { type: string }) => e.type), expected);
      for (const entry of res.body) {
        assert.equal(entry.deviceId, lockId);
        assert.deepEqual(entry.issuer, { userId: owner.userId, ip: null }, "the owner's address is not the member's to see");
        assert.deepEqual(entry.subject, { userId: member.userId, email: member.email });
        assert.equal(entry.rejected, false);
      }
    }

    const chain = await verifyLockChain(t.service.ctx.db.kysely, lockId);
    assert.equal(chain.ok, true);
    assert.equal(chain.entries, 5);
  });
});
