import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { recordDoorEvent, recordState } from '../../src/lock-link/reports.js';
import { authenticateLockSecret } from '../../src/locks/provision.js';
import { recordOperationReport } from '../../src/operations/lock-reports.js';
import { assertError } from '../accounts/support.js';
import { certify, type Signer } from '../execute/support.js';
import { auditEntriesOf, claimLock, createVerifiedUser, provisionLock, shareLock } from '../helpers/locks.js';
import { AuditModel, assertMatchesModel } from '../helpers/sdk-models.js';
import { sdkExecute, sdkOperationToken, sdkRequest } from '../helpers/sdk-wire.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { connectTestLock } from '../helpers/test-lock.js';
import { eventually } from '../helpers/wait.js';

/**
 * Issue 28: DEVICE_DECOMMISSIONED. Neither the docs nor the SDK name a way to decommission a lock,
 * only the audit type: POST /device/{id}/decommission is ours (docs/decisions.md). The owner
 * retires the lock: members lose it, its tiles and queued operations go, its device credentials
 * and registration key stop working, and the entry shows in the owner's log as the SDK reads it
 * (nobody is a member afterwards to read the lock's own log, whose v1 keeps the spec's seven types).
 */
describe('locks: decommissioning', () => {
  let t: TestService;
  let owner: Signer;
  const now = () => Math.floor(Date.now() / 1000);

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never' });
    owner = await certify(t, await createVerifiedUser(t));
  });
  after(() => t?.close());

  const decommission = (user: { authToken: string }, lockId: string) => t.api.post(`/device/${lockId}/decommission`, { token: user.authToken });

  it('lets only the owner retire the lock; a USER 403, another ADMIN 403, a stranger 404', async () => {
    const lock = await claimLock(t, owner);
    const admin = await createVerifiedUser(t);
    const user = await createVerifiedUser(t);
    const stranger = await createVerifiedUser(t);
    await shareLock(t, lock.id, owner, admin.userId, { role: 'ADMIN' });
    await shareLock(t, lock.id, owner, user.userId);
    assertError(await decommission(user, lock.id), 403);
    assertError(await decommission(admin, lock.id), 403);
    assertError(await decommission(stranger, lock.id), 404);
    assertError(await decommission(owner, randomUUID()), 404);
    assert.equal((await t.api.get(`/device/${lock.id}`, { token: user.authToken })).status, 200, 'nothing changed');
  });

  it('retires it: members lose it, tiles go, the device\'s secret, certificate and key stop working; audited', async () => {
    const provisioned = await provisionLock(t);
    const claimed = await t.api.post('/device', { token: owner.authToken, body: { key: provisioned.registrationKey, name: 'Back door' } });
    assert.equal(claimed.status, 200, claimed.text);
    const lockId = provisioned.id;
    const member = await createVerifiedUser(t);
    await shareLock(t, lockId, owner, member.userId);
    const tile = randomUUID();
    assert.equal((await t.api.put(`/device/${lockId}/tile/${tile}`, { token: owner.authToken })).status, 204);
    const queued = await sdkExecute(t.api, owner.authToken, lockId, sdkOperationToken(owner, lockId, '{"type":"MUTATE_LOCK","locked":false,"duration":null}', { now: now(), exp: now() + 600 }));
    assert.equal(queued.status, 202, queued.text);
    const url = `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`;
    const device = await connectTestLock({ url, id: lockId, secret: provisioned.secret });
    try {
      await eventually(async () => (await t.api.get(queued.headers.get('location')!, { token: owner.authToken })).body.status === 'DELIVERED', 'the queued unlock delivered');
      assert.equal(await authenticateLockSecret(t.service.ctx, lockId, null), true, 'its device certificate counts while in service');
      const configs = device.configs.length;

      const res = await decommission(owner, lockId);
      assert.equal(res.status, 204, res.text);

      for (const user of [owner, member]) {
        assertError(await t.api.get(`/device/${lockId}`, { token: user.authToken }), 404);
        const list = (await t.api.get('/device', { token: user.authToken })).body as Array<{ id: string }>;
        assert.ok(!list.some((l) => l.id === lockId));
      }
      assertError(await t.api.get(`/tile/${tile}`, { token: owner.authToken }), 404);
      await eventually(() => {
        const last = device.configs.length > configs ? JSON.parse(device.configs.at(-1)!.toString()) as { users: unknown[] } : undefined;
        return last && last.users.length === 0;
      }, 'the lock told it has no users');
      assert.equal(await authenticateLockSecret(t.service.ctx, lockId, provisioned.secret), false, 'its secret no longer logs in');
      assert.equal(await authenticateLockSecret(t.service.ctx, lockId, null), false, 'nor its device certificate');
      await assert.rejects(connectTestLock({ url, id: lockId, secret: provisioned.secret }), 'the broker refuses it');
      assertError(await t.api.post('/device', { token: owner.authToken, body: { key: provisioned.registrationKey, name: 'Again' } }), 404);
      assertError(await decommission(owner, lockId), 404);
    } finally {
      await device.close();
    }

    const v2 = await sdkRequest(t.api, 'GET', `/user/${owner.userId}/log?start=0&end=${now() + 60}`, { token: owner.authToken, version: 2 });
    assert.equal(v2.status, 200, v2.text);
    const entry = (v2.body as any[]).find((e) => e.type === 'DEVICE_DECOMMISSIONED');
    assert.ok(entry, JSON.stringify(v2.body));
    assertMatchesModel(entry, AuditModel, 'user audit v2');
    assert.deepEqual([entry.deviceId, entry.issuer.userId, entry.rejected], [lockId, owner.userId, false]);
    const rows = await t.service.ctx.db.kysely.selectFrom('audit_entries').select(['type', 'details']).where('lock_id', '=', lockId).where('type', '=', 'DEVICE_DECOMMISSIONED').execute();
    assert.equal(rows.length, 1);
  });

  it('lets an active ADMIN retire a lock whose owner has left; what waited in its queue is refused', async () => {
    const lock = await claimLock(t, owner);
    const admin = await certify(t, await createVerifiedUser(t));
    await shareLock(t, lock.id, owner, admin.userId, { role: 'ADMIN' });
    const leave = await sdkExecute(t.api, owner.authToken, lock.id, sdkOperationToken(owner, lock.id, `{"type":"REMOVE_USER","users":[${JSON.stringify(owner.userId)}]}`, { now: now() }));
    assert.equal(leave.status, 200, leave.text);
    const queued = await sdkExecute(t.api, admin.authToken, lock.id, sdkOperationToken(admin, lock.id, '{"type":"MUTATE_LOCK","locked":false,"duration":null}', { now: now(), exp: now() + 600 }));
    assert.equal(queued.status, 202, queued.text);
    assert.equal((await decommission(admin, lock.id)).status, 204);
    const [row] = await t.service.ctx.db.kysely.selectFrom('queued_operations').select(['state', 'error_message']).where('id', '=', queued.body.id).execute();
    assert.deepEqual(row, { state: 'REFUSED', error_message: 'the lock was decommissioned' });
    assertError(await t.api.get(`/device/${lock.id}`, { token: admin.authToken }), 404);
  });

  it('records nothing its reports bring once decommissioned, on an instance not told yet (a report queued before, a bus message missed)', async () => {
    const lock = await claimLock(t, owner);
    const { ctx } = t.service;
    // Known locked, the door closed (a first report is stored, not audited).
    await recordState(ctx, lock.id, { locked: true, doorOpen: false, ts: now() });
    assert.equal((await decommission(owner, lock.id)).status, 204);
    const entries = (await auditEntriesOf(t, lock.id)).length;
    // What the link hands on where the lock was not retired: the recorders themselves.
    assert.deepEqual(await recordState(ctx, lock.id, { locked: false, ts: now() }), []);
    assert.equal(await recordOperationReport(ctx, lock.id, { id: randomUUID(), source: 'manual', locked: false, ts: now() }), null);
    assert.equal(await recordDoorEvent(ctx, lock.id, { type: 'DOOR_OPEN', ts: now() }), false);
    assert.equal((await auditEntriesOf(t, lock.id)).length, entries, 'nothing audited');
    const row = await ctx.db.kysely.selectFrom('locks').select('locked').where('id', '=', lock.id).executeTakeFirstOrThrow();
    assert.equal(row.locked, 1, 'the bolt as it was');
  });
});
