import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { claimLock, createVerifiedUser } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { certify, execute, signed, type Operation, type Signer } from './support.js';

// The operation as the official SDK writes it: every unset optional field an explicit null, and
// members of its own. The exact bytes are signed into the token and sent over HTTP.
describe('execute: an operation with explicit nulls and unknown members', () => {
  let t: TestService;
  let admin: Signer;

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never' });
    admin = await certify(t, await createVerifiedUser(t));
  });
  after(async () => t?.close());

  const operation = (json: string) => JSON.parse(json) as Operation;
  const settings = (lockId: string) =>
    t.service.ctx.db.kysely.selectFrom('locks').select(['unlock_time', 'unlock_between']).where('id', '=', lockId).executeTakeFirstOrThrow();

  it('MUTATE_SETTING: a null unlockDuration and null exceptions are absent, unknown members ignored', async () => {
    const lock = await claimLock(t, admin);
    const before = await settings(lock.id);
    const bytes =
      '{"type":"MUTATE_SETTING","unlockDuration":null,"unlockBetween":{"start":"08:00","end":"18:00","timezone":"Europe/London","days":["MONDAY","TUESDAY"],"exceptions":null,"sdkNote":"x"},"location":null,"requestId":"r-1"}';
    const res = await execute(t, admin, lock.id, signed(admin, lock.id, operation(bytes)));
    assert.equal(res.status, 200, res.text);
    const after = await settings(lock.id);
    assert.equal(after.unlock_time, before.unlock_time);
    assert.deepEqual(JSON.parse(after.unlock_between!), { start: '08:00', end: '18:00', timezone: 'Europe/London', days: ['MONDAY', 'TUESDAY'], exceptions: [] });
  });

  it('ADD_USER: null role, start and end share as a USER without bounds', async () => {
    const lock = await claimLock(t, admin);
    const invitee = await createVerifiedUser(t);
    const bytes = `{"type":"ADD_USER","user":"${invitee.userId}","publicKey":"${invitee.key.publicKeyBase64}","role":null,"start":null,"end":null,"location":null}`;
    const res = await execute(t, admin, lock.id, signed(admin, lock.id, operation(bytes)));
    assert.equal(res.status, 200, res.text);
    const member = await t.service.ctx.db.kysely
      .selectFrom('lock_members').select(['role', 'starts_at', 'ends_at']).where('lock_id', '=', lock.id).where('user_id', '=', invitee.userId).executeTakeFirstOrThrow();
    assert.deepEqual(member, { role: 'USER', starts_at: null, ends_at: null });
  });

  it('a known field of the wrong type is still a 400, and nothing changes', async () => {
    const lock = await claimLock(t, admin);
    const before = await settings(lock.id);
    const res = await execute(t, admin, lock.id, signed(admin, lock.id, operation('{"type":"MUTATE_SETTING","unlockDuration":"12","unlockBetween":null}')));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error, 'validation_failed');
    assert.match(res.body.message, /operation\.unlockDuration/);
    assert.deepEqual(await settings(lock.id), before);
  });

  it('members named __proto__, constructor or toString are unknown members: they supply no field', async () => {
    const lock = await claimLock(t, admin);
    const before = await settings(lock.id);
    // JSON.parse keeps "__proto__" as an own member; copied onto the operation it became its prototype.
    const viaPrototype = await execute(t, admin, lock.id, signed(admin, lock.id, operation('{"type":"MUTATE_SETTING","__proto__":{"unlockDuration":7}}')));
    assert.equal(viaPrototype.status, 400, viaPrototype.text);
    assert.deepEqual(await settings(lock.id), before);
    const named = await execute(t, admin, lock.id, signed(admin, lock.id, operation('{"type":"MUTATE_SETTING","unlockDuration":9,"constructor":"x","toString":{"a":1}}')));
    assert.equal(named.status, 200, named.text);
    assert.equal((await settings(lock.id)).unlock_time, 9);
  });
});
