import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SimulatedLock } from '../../src/simulator/simulated-lock.js';
import { auditEntriesOf, claimLock, createSite, createVerifiedUser, shareLock, type ClaimedLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { certify, signed, type Operation, type Signer } from '../execute/support.js';

/**
 * Issue 31 point 4: what the lock says it enforces (state.lockdown, protocol 1.4) is stored and
 * audited, and GET /lockdowns shows a lockdown to the administrators of its locks: declared by
 * whom, its scope, k, responders, the lifts so far, and per lock what the lock says.
 */
describe('a lockdown as the service shows it', () => {
  let t: TestService;
  let owner: Signer;
  let second: Signer;
  let user: Signer;
  let stranger: Signer;
  let claimed: ClaimedLock;
  let other: ClaimedLock;
  let siteId: string;
  let sim: SimulatedLock;

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never', ALARM_SWEEP_MS: '0' });
    owner = await certify(t, await createVerifiedUser(t, { displayName: 'Olive Owner' }));
    second = await certify(t, await createVerifiedUser(t));
    user = await certify(t, await createVerifiedUser(t));
    stranger = await certify(t, await createVerifiedUser(t));
    siteId = (await createSite(t)).id;
    claimed = await claimLock(t, owner, { siteId });
    other = await claimLock(t, owner);
    await shareLock(t, claimed.id, owner, second.userId, { role: 'ADMIN' });
    await shareLock(t, claimed.id, owner, user.userId);
    sim = new SimulatedLock({
      id: claimed.id, secret: claimed.secret, mqttUrl: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, replyDelayMs: 0,
      trustedRoot: t.service.ctx.pki.rootCertificate, now: () => Date.now() / 1000, log: () => undefined,
    });
    await sim.connect();
    await eventually(() => sim.configVersion !== null, 'config held');
  });
  after(async () => {
    await sim.close().catch(() => undefined);
    await t.close();
  });

  const submit = (signer: Signer, sub: string, operation: object) =>
    t.api.post('/lockdown', { token: signer.authToken, rawBody: signed(signer, sub, operation as Operation), contentType: 'application/jwt' });
  const lockdowns = (signer: Signer, query = '') => t.api.get(`/lockdowns${query}`, { token: signer.authToken });
  const lockJson = async (signer: Signer) => (await t.api.get(`/device/${claimed.id}`, { token: signer.authToken })).body as { state: { lockedDown?: boolean } };

  it('stores what the lock reports and serves the declaration, its lifts and each lock to administrators only', async () => {
    await eventually(async () => (await lockJson(user)).state.lockedDown === false, 'the lock says no lockdown');
    assert.deepEqual((await lockdowns(owner)).body, { lockdowns: [] });

    const lockdownId = randomUUID();
    const declared = await submit(owner, siteId, { type: 'LOCKDOWN', lockdownId, locks: [claimed.id], responders: [user.userId], liftQuorum: 2 });
    assert.equal(declared.status, 200, declared.text);
    await eventually(async () => (await lockJson(user)).state.lockedDown === true, 'the lock says it is locked down');

    const shown = await lockdowns(owner, `?siteId=${siteId}`);
    assert.equal(shown.status, 200, shown.text);
    const [view] = shown.body.lockdowns;
    assert.equal(shown.body.lockdowns.length, 1);
    assert.equal(view.id, lockdownId);
    assert.deepEqual(view.declaredBy, { userId: owner.userId, name: 'Olive Owner' });
    assert.deepEqual(view.scope, { kind: 'site', id: siteId });
    assert.equal(view.quorum, 2);
    assert.deepEqual(view.responders.map((r: { userId: string }) => r.userId), [user.userId]);
    assert.deepEqual(view.lifts, []);
    assert.equal(view.locks.length, 1);
    assert.deepEqual({ ...view.locks[0], reportedAt: typeof view.locks[0].reportedAt }, { lockId: claimed.id, lifts: 0, liftedAt: null, reported: 'in_force', reportedAt: 'number' });
    // The same through the lock filter, and for the second administrator; the other lock's filter shows none.
    assert.equal((await lockdowns(second, `?lockId=${claimed.id}`)).body.lockdowns[0].id, lockdownId);
    assert.deepEqual((await lockdowns(owner, `?lockId=${other.id}`)).body, { lockdowns: [] });

    // Not an administrator: a USER is refused, a stranger sees neither the lock nor the site, and a bad id is a 404.
    assert.equal((await lockdowns(user, `?lockId=${claimed.id}`)).status, 403);
    assert.deepEqual((await lockdowns(user)).body, { lockdowns: [] });
    assert.equal((await lockdowns(stranger, `?lockId=${claimed.id}`)).status, 404);
    assert.equal((await lockdowns(stranger, `?siteId=${siteId}`)).status, 404);
    assert.equal((await lockdowns(owner, '?lockId=not-a-lock')).status, 404);
    assert.deepEqual((await lockdowns(stranger)).body, { lockdowns: [] });
    assert.equal((await lockdowns(owner, '?colour=red')).status, 400);

    // One lift of two: shown, the lock still holds it.
    assert.equal((await submit(owner, claimed.id, { type: 'LIFT_LOCKDOWN', lockdownId, locks: [claimed.id] })).status, 200);
    const oneLift = (await lockdowns(second)).body.lockdowns[0];
    assert.deepEqual(oneLift.lifts.map((l: { userId: string; name: string }) => [l.userId, l.name]), [[owner.userId, 'Olive Owner']]);
    assert.equal(oneLift.locks[0].lifts, 1);
    assert.equal(oneLift.locks[0].liftedAt, null);

    // The second: lifted at the service, then the lock says so and the lockdown leaves the list.
    assert.equal((await submit(second, claimed.id, { type: 'LIFT_LOCKDOWN', lockdownId, locks: [claimed.id] })).status, 200);
    await eventually(async () => (await lockJson(owner)).state.lockedDown === false, 'the lock says the lockdown is lifted');
    assert.deepEqual((await lockdowns(owner)).body, { lockdowns: [] });

    const reported = (await auditEntriesOf(t, claimed.id)).filter((entry) => entry.type === 'LOCKDOWN_REPORTED');
    assert.deepEqual(reported.map((entry) => [entry.message, entry.actor_user_id]), [
      ['the lock reports the lockdown in force', null],
      ['the lock reports no lockdown in force', null],
    ]);
    assert.ok(reported.every((entry) => String(entry.details).includes(lockdownId)));
  });
});
