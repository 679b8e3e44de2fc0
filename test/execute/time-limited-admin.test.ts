import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditEntriesOf, claimLock, shareLock, createVerifiedUser } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { certify, execute, signed, type Signer } from './support.js';

/** Issue 15 §4: an ADMIN given access "until Friday" cannot hand out access past Friday. */
describe('execute: a time-limited ADMIN stays time-limited', () => {
  let t: TestService;
  let owner: Signer;
  let temp: Signer;
  let lockId: string;
  let ownEnd: number;

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never' });
    owner = await certify(t, await createVerifiedUser(t));
    temp = await certify(t, await createVerifiedUser(t));
    lockId = (await claimLock(t, owner)).id;
    ownEnd = Math.floor(Date.now() / 1000) + 3600;
    await shareLock(t, lockId, owner, temp.userId, { role: 'ADMIN', end: ownEnd });
  });
  after(async () => t?.close());

  const roleOf = async (userId: string) =>
    (await t.service.ctx.db.kysely.selectFrom('lock_members').select(['role', 'ends_at']).where('lock_id', '=', lockId).where('user_id', '=', userId).executeTakeFirst()) ?? null;

  it('refuses to grant its second account lasting ADMIN, or a window ending after its own (403, audited as rejected)', async () => {
    const second = await createVerifiedUser(t); // the attacker's other account
    for (const grant of [{ role: 'ADMIN' as const }, { role: 'USER' as const }, { role: 'ADMIN' as const, end: ownEnd + 1 }, { role: 'USER' as const, start: 0, end: ownEnd + 86_400 }]) {
      const res = await execute(t, temp, lockId, signed(temp, lockId, { type: 'ADD_USER', user: second.userId, publicKey: second.key.publicKeyBase64, ...grant }));
      assert.equal(res.status, 403, `${JSON.stringify(grant)}: ${res.text}`);
      assert.equal(await roleOf(second.userId), null, 'nothing was granted');
    }
    const refusals = (await auditEntriesOf(t, lockId)).filter((e) => e.subject_user_id === second.userId);
    assert.equal(refusals.length, 4);
    assert.ok(refusals.every((e) => e.rejected === 1 && e.actor_user_id === temp.userId));
  });

  it('may grant access ending at or before its own end', async () => {
    const guest = await createVerifiedUser(t);
    const res = await execute(t, temp, lockId, signed(temp, lockId, { type: 'ADD_USER', user: guest.userId, publicKey: guest.key.publicKeyBase64, role: 'ADMIN', end: ownEnd }));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await roleOf(guest.userId), { role: 'ADMIN', ends_at: ownEnd });
  });

  it('cannot lift the end of an account it already shared with', async () => {
    const guest = await createVerifiedUser(t);
    await shareLock(t, lockId, temp, guest.userId, { end: ownEnd - 60 });
    const res = await execute(t, temp, lockId, signed(temp, lockId, { type: 'ADD_USER', user: guest.userId, publicKey: guest.key.publicKeyBase64, role: 'USER', end: null }));
    assert.equal(res.status, 403, res.text);
    assert.equal((await roleOf(guest.userId))?.ends_at, ownEnd - 60);
  });

  it('leaves a lasting ADMIN free to grant lasting access', async () => {
    const guest = await createVerifiedUser(t);
    const res = await execute(t, owner, lockId, signed(owner, lockId, { type: 'ADD_USER', user: guest.userId, publicKey: guest.key.publicKeyBase64, role: 'ADMIN' }));
    assert.equal(res.status, 200, res.text);
  });
});
