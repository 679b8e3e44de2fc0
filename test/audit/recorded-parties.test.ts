import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createThirdParty, thirdPartyToken, type ThirdParty } from '../applications/helpers.js';
import { certify, execute, signed, type Signer } from '../execute/support.js';
import { uniqueEmail, type TestUser } from '../helpers/factories.js';
import { claimLock, createVerifiedUser, provisionLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';

interface Party {
  userId: string;
  email?: string | null;
  displayName?: string | null;
  ip?: null;
}
interface LockEntry {
  type: string;
  user: string | null;
  email: string | null;
  displayName: string | null;
  issuer: Party;
  subject: Party | null;
}
interface UserEntry {
  deviceId: string;
  type: string;
  issuer: { userId: string };
  subject?: { userId: string; email: string | null };
}

/**
 * Issue 15 §5: an entry keeps its actor's and subject's email and display name as they were when
 * it was recorded. Everything here goes over HTTP: claims, signed shares, renames, a third
 * party's token whose claims change the email, account deletion, and the logs read back.
 */
describe('audit entries keep who acted as they were then', () => {
  let t: TestService;
  let owner: Signer;

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never' });
    owner = await certify(t, await createVerifiedUser(t, { displayName: 'Olive Owner' }));
  });
  after(async () => t?.close());

  const lockLog = async (lockId: string, token: string) => {
    const res = await t.api.get<LockEntry[]>(`/device/${lockId}/log`, { token, version: 2 });
    assert.equal(res.status, 200, res.text);
    return [...res.body].reverse(); // oldest first
  };
  const userLog = async (userId: string, token: string) => {
    const res = await t.api.get<UserEntry[]>(`/user/${userId}/log`, { token, version: 2 });
    assert.equal(res.status, 200, res.text);
    return [...res.body].reverse();
  };
  const share = async (by: Signer, lockId: string, userId: string, role: 'USER' | 'ADMIN' = 'USER') => {
    const res = await execute(t, by, lockId, signed(by, lockId, { type: 'ADD_USER', user: userId, publicKey: by.key.publicKeyBase64, role }));
    assert.equal(res.status, 200, res.text);
  };
  const rename = async (user: TestUser, displayName: string) => {
    const res = await t.api.post('/account', { token: user.authToken, body: { displayName } });
    assert.equal(res.status, 204, res.text);
  };

  it('a rename changes neither the lock log nor the user log of what was done before, and shows on what is done after', async () => {
    const lock = await claimLock(t, owner);
    const ann = await certify(t, await createVerifiedUser(t, { displayName: 'Ann Before' }));
    const [bob, cat] = await Promise.all([createVerifiedUser(t, { displayName: 'Bob Before' }), createVerifiedUser(t, { displayName: 'Cat' })]);
    await share(owner, lock.id, ann.userId, 'ADMIN');
    await share(ann, lock.id, bob.userId);
    await rename(ann, 'Ann After');
    await rename(bob, 'Bob After');
    await share(ann, lock.id, cat.userId);

    const entries = await lockLog(lock.id, owner.authToken);
    assert.deepEqual(entries.map((e) => [e.type, e.user]), [['OWNER_ASSIGNED', owner.userId], ['LOCK_SHARED', owner.userId], ['LOCK_SHARED', ann.userId], ['LOCK_SHARED', ann.userId]]);
    const [, toAnn, toBob, toCat] = entries as [LockEntry, LockEntry, LockEntry, LockEntry];
    assert.deepEqual(toAnn.subject, { userId: ann.userId, email: ann.email, displayName: 'Ann Before', ip: null });
    assert.deepEqual([toBob.email, toBob.displayName], [ann.email, 'Ann Before']);
    assert.deepEqual(toBob.issuer, { userId: ann.userId, email: ann.email, displayName: 'Ann Before', ip: '127.0.0.1' }, 'the address her request came from');
    assert.deepEqual(toBob.subject, { userId: bob.userId, email: bob.email, displayName: 'Bob Before', ip: null });
    assert.deepEqual([toCat.email, toCat.displayName, toCat.issuer.displayName], [ann.email, 'Ann After', 'Ann After']);

    // Ann's own log: the shares she made name their subject as recorded.
    const annsLog = await userLog(ann.userId, ann.authToken);
    assert.deepEqual(annsLog.map((e) => [e.type, e.issuer.userId, e.subject]), [
      ['LOCK_SHARED', owner.userId, { userId: ann.userId, email: ann.email }],
      ['LOCK_SHARED', ann.userId, { userId: bob.userId, email: bob.email }],
      ['LOCK_SHARED', ann.userId, { userId: cat.userId, email: cat.email }],
    ]);
  });

  it("a third party's new email claim changes neither log for earlier entries; later ones carry the new address", async () => {
    const party: ThirdParty = await createThirdParty(t.api);
    const sub = `someone-${Date.now()}`;
    const before = { email: uniqueEmail('tp-before'), name: 'Tee Before' };
    const afterwards = { email: uniqueEmail('tp-after'), name: 'Tee After' };
    const tokenAs = (claims: { email: string; name: string }) => thirdPartyToken(party, { sub, claims: { ...claims, email_verified: true } });
    const firstToken = await tokenAs(before);
    const own = await t.api.post('/device', { token: firstToken, body: { key: (await provisionLock(t)).registrationKey, name: 'Tee door' } });
    assert.equal(own.status, 200, own.text);
    const teeId = (await t.service.ctx.db.kysely.selectFrom('users').select('id').where('namespace', '=', party.applicationId).where('external_id', '=', sub).executeTakeFirstOrThrow()).id;
    const shared = await claimLock(t, owner);
    // ADD_USER over HTTP takes only members of the signer's own namespace: shared as it would do.
    await shareLock(t, shared.id, owner, teeId, { role: 'ADMIN' });

    const laterToken = await tokenAs(afterwards);
    const account = await t.api.get('/account', { token: laterToken });
    assert.equal(account.status, 200, account.text);
    assert.equal(account.body.email, afterwards.email, 'the claims changed the stored address');
    await shareLock(t, shared.id, owner, teeId, { role: 'USER' }); // USER_DEMOTED, after the change

    const ownLog = await lockLog(own.body.id, laterToken);
    assert.deepEqual(ownLog.map((e) => [e.type, e.email, e.displayName]), [['OWNER_ASSIGNED', before.email, before.name]]);
    const sharedLog = await lockLog(shared.id, owner.authToken);
    assert.deepEqual(sharedLog.slice(1).map((e) => [e.type, e.subject?.email, e.subject?.displayName]), [
      ['LOCK_SHARED', before.email, before.name],
      ['USER_DEMOTED', afterwards.email, afterwards.name],
    ]);
    const teesLog = await userLog(teeId, laterToken);
    assert.deepEqual(teesLog.map((e) => [e.type, e.subject?.email]), [['OWNER_ASSIGNED', undefined], ['LOCK_SHARED', before.email], ['USER_DEMOTED', afterwards.email]]);
  });

  it('a deleted account stays named in the trail as it was, the leaving itself included', async () => {
    const lock = await claimLock(t, owner);
    const dan = await createVerifiedUser(t, { displayName: 'Dan Leaving' });
    await share(owner, lock.id, dan.userId);
    const res = await t.api.delete('/account', { token: dan.authToken });
    assert.equal(res.status, 204, res.text);
    assert.equal(await t.service.ctx.db.kysely.selectFrom('users').select('id').where('id', '=', dan.userId).executeTakeFirst(), undefined);

    const [, shared, left] = (await lockLog(lock.id, owner.authToken)) as [LockEntry, LockEntry, LockEntry];
    assert.deepEqual(shared.subject, { userId: dan.userId, email: dan.email, displayName: 'Dan Leaving', ip: null });
    assert.equal(left.type, 'LOCK_REVOKED');
    assert.deepEqual([left.user, left.email, left.displayName], [dan.userId, dan.email, 'Dan Leaving']);
    assert.deepEqual(left.subject, { userId: dan.userId, email: dan.email, displayName: 'Dan Leaving', ip: null });
    // The owner's own log names the former member as recorded.
    const ownersLog = await userLog(owner.userId, owner.authToken);
    assert.deepEqual(ownersLog.at(-1)!.subject, { userId: dan.userId, email: dan.email });
  });

  it('keeps the recorded names on the entry itself, in hash format 3, whatever the users table holds today', async () => {
    const lock = await claimLock(t, owner);
    const db = t.service.ctx.db.kysely;
    const stored = await db.selectFrom('audit_entries').select(['hash_version', 'actor_email', 'actor_display_name', 'subject_email']).where('lock_id', '=', lock.id).executeTakeFirstOrThrow();
    assert.deepEqual(stored, { hash_version: 3, actor_email: owner.email, actor_display_name: 'Olive Owner', subject_email: null });
    // Even a change made behind the service's back (no API call) does not reach the log.
    await db.updateTable('users').set({ display_name: 'Changed Directly' }).where('id', '=', owner.userId).execute();
    try {
      const [claimed] = (await lockLog(lock.id, owner.authToken)) as [LockEntry];
      assert.deepEqual([claimed.email, claimed.displayName], [owner.email, 'Olive Owner']);
    } finally {
      await db.updateTable('users').set({ display_name: 'Olive Owner' }).where('id', '=', owner.userId).execute();
    }
  });
});
