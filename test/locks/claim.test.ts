import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { auditEntriesOf, claimLock, provisionLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { lockRow } from './support.js';

describe('POST /device (claim)', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  it('makes the caller ADMIN, names the lock and answers the full Lock', async () => {
    const owner = await createUser(t.api);
    const provisioned = await provisionLock(t, { name: 'Factory name' });
    const res = await t.api.post('/device', { token: owner.authToken, body: { key: provisioned.registrationKey, name: 'Front door' } });
    assert.equal(res.status, 200);
    const lock = res.body;
    assert.equal(lock.id, provisioned.id);
    assert.equal(lock.name, 'Front door');
    assert.equal(lock.role, 'ADMIN');
    assert.equal(lock.settings.defaultName, 'Front door');
    assert.equal(lock.start, null);
    assert.equal(lock.end, null);
    assert.equal(lock.favourite, false);
    assert.equal(typeof lock.lastOperation, 'number');

    const row = await lockRow(t, provisioned.id);
    assert.equal(row.owner_user_id, owner.userId);
    assert.equal(typeof row.claimed_at, 'number');
    assert.equal(row.config_version, 1);
  });

  it('audits OWNER_ASSIGNED with the new owner as actor', async () => {
    const owner = await createUser(t.api);
    const { id } = await claimLock(t, owner);
    const entries = await auditEntriesOf(t, id);
    assert.deepEqual(
      entries.map((e) => [e.type, e.actor_user_id, e.subject_user_id, e.rejected]),
      [['OWNER_ASSIGNED', owner.userId, null, 0]],
    );
  });

  it('announces the new configuration on the bus after commit', async () => {
    const owner = await createUser(t.api);
    const provisioned = await provisionLock(t);
    const seen: unknown[] = [];
    const off = t.service.ctx.bus.subscribe('lock-config', (message) => seen.push(message));
    try {
      const res = await t.api.post('/device', { token: owner.authToken, body: { key: provisioned.registrationKey, name: 'Bus door' } });
      assert.equal(res.status, 200);
    } finally {
      off();
    }
    assert.deepEqual(seen, [{ lockId: provisioned.id }]);
  });

  it('answers 404 for an unknown key and 409 for a used one', async () => {
    const owner = await createUser(t.api);
    const other = await createUser(t.api);
    const unknown = await t.api.post('/device', { token: owner.authToken, body: { key: 'no-such-key', name: 'x' } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 404);

    const { registrationKey, id } = await claimLock(t, owner);
    const again = await t.api.post('/device', { token: other.authToken, body: { key: registrationKey, name: 'mine now' } });
    assert.equal(again.status, 409);
    const byOwner = await t.api.post('/device', { token: owner.authToken, body: { key: registrationKey, name: 'twice' } });
    assert.equal(byOwner.status, 409);
    // The loser gained nothing.
    assert.equal((await t.api.get(`/device/${id}`, { token: other.authToken })).status, 404);
  });

  it('lets exactly one of many concurrent claims win', async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => createUser(t.api)));
    const { registrationKey, id } = await provisionLock(t);
    const results = await Promise.all(users.map((u) => t.api.post('/device', { token: u.authToken, body: { key: registrationKey, name: 'race' } })));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 409, 409, 409, 409, 409]);
    const winner = users[results.findIndex((r) => r.status === 200)]!;
    const members = await t.service.ctx.db.kysely.selectFrom('lock_members').select(['user_id', 'role']).where('lock_id', '=', id).execute();
    assert.deepEqual(members, [{ user_id: winner.userId, role: 'ADMIN' }]);
    assert.equal((await auditEntriesOf(t, id)).length, 1);
  });

  it('validates the body', async () => {
    const owner = await createUser(t.api);
    const { registrationKey } = await provisionLock(t);
    for (const body of [{ key: registrationKey }, { name: 'x' }, { key: registrationKey, name: '' }, { key: registrationKey, name: 'n'.repeat(256) }, { key: {}, name: 'x' }]) {
      const res = await t.api.post('/device', { token: owner.authToken, body });
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    const noBody = await t.api.post('/device', { token: owner.authToken });
    assert.equal(noBody.status, 400);
    // The key survived the bad attempts.
    const ok = await t.api.post('/device', { token: owner.authToken, body: { key: registrationKey, name: 'n'.repeat(255) } });
    assert.equal(ok.status, 200);
  });

  it('needs authentication', async () => {
    const { registrationKey } = await provisionLock(t);
    const res = await t.api.post('/device', { body: { key: registrationKey, name: 'anon' } });
    assert.equal(res.status, 401);
  });
});
