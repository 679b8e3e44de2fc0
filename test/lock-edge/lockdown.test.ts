import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { lockConfig } from '../../src/locks/config.js';
import { SimulatedLock } from '../../src/simulator/simulated-lock.js';
import { auditEntriesOf, claimLock, createVerifiedUser, shareLock, type ClaimedLock } from '../helpers/locks.js';
import { startInstanceBeside, startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { certify, execute, signed, unlock, type Operation, type Signer } from '../execute/support.js';

/**
 * Issue 31 point 3: a lockdown the lock enforces itself (device protocol 1.4). Commands are sent
 * straight to the lock's topic through the lock link, bypassing every check of the service, as a
 * compromised service host could.
 */
describe('lockdown at the edge', () => {
  let t: TestService;
  let dir: string;
  let owner: Signer;
  let second: Signer;
  let responder: Signer;
  let claimed: ClaimedLock;
  const sims: SimulatedLock[] = [];

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never', ALARM_SWEEP_MS: '0' });
    dir = await mkdtemp(join(tmpdir(), 'latchkey-lockdown-'));
    owner = await certify(t, await createVerifiedUser(t));
    second = await certify(t, await createVerifiedUser(t));
    responder = await certify(t, await createVerifiedUser(t));
    claimed = await claimLock(t, owner);
    await shareLock(t, claimed.id, owner, second.userId, { role: 'ADMIN' });
    await shareLock(t, claimed.id, owner, responder.userId);
  });
  after(async () => {
    for (const sim of sims) await sim.close().catch(() => undefined);
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function startLock(): Promise<SimulatedLock> {
    const sim = new SimulatedLock({
      id: claimed.id, secret: claimed.secret, mqttUrl: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, replyDelayMs: 0,
      trustedRoot: t.service.ctx.pki.rootCertificate, lockdownFile: join(dir, 'lockdown.json'), now: () => Date.now() / 1000, log: () => undefined,
    });
    sims.push(sim);
    await sim.connect();
    return sim;
  }
  const bypass = (signer: Signer) => t.service.ctx.link.sendCommand(claimed.id, signed(signer, claimed.id, unlock), { type: 'MUTATE_LOCK', locked: false }).then(() => 'ok', (err: Error) => err.message);
  const submit = (signer: Signer, sub: string, operation: object) =>
    t.api.post('/lockdown', { token: signer.authToken, rawBody: signed(signer, sub, operation as Operation), contentType: 'application/jwt' });
  const currentVersion = async () => (await lockConfig(t.service.ctx.db.kysely, claimed.id))!.version;

  it('refuses a valid signed unlock at the lock under a lockdown, keeps it across restarts, and lifts it only with k signatures', async () => {
    let sim = await startLock();
    await eventually(() => sim.configVersion !== null, 'config held');
    const lockdownId = randomUUID();
    const declared = await submit(owner, claimed.id, { type: 'LOCKDOWN', lockdownId, locks: [claimed.id], responders: [responder.userId], liftQuorum: 2 });
    assert.equal(declared.status, 200, declared.text);
    await eventually(() => sim.lockdownId === lockdownId, 'the lock holds the lockdown');
    assert.equal(sim.state.locked, true);

    // The service refuses, this instance and another (its state is the database's).
    assert.equal((await execute(t, owner, claimed.id, signed(owner, claimed.id, unlock))).status, 403);
    const beside = await startInstanceBeside(t);
    try {
      assert.equal((await execute(t, second, claimed.id, signed(second, claimed.id, unlock))).status, 403);
    } finally {
      await beside.close();
    }
    // Bypassing the service: the lock itself refuses an administrator, and lets the responder in.
    assert.match(await bypass(owner), /locked_down/);
    assert.equal(await bypass(responder), 'ok');

    // A lock restarted, handed a config without the lockdown (as a compromised service would send): still locked down.
    await sim.close();
    const config = (await lockConfig(t.service.ctx.db.kysely, claimed.id))!;
    const { lockdown, ...withoutLockdown } = config;
    assert.ok(lockdown);
    await t.service.ctx.link.publishConfig(claimed.id, { ...withoutLockdown, version: config.version + 100 } as never);
    sim = await startLock();
    await eventually(() => sim.configVersion === config.version + 100, 'the forged config applied');
    assert.equal(sim.lockdownId, lockdownId);
    assert.match(await bypass(owner), /locked_down/);

    // One lift where two are needed: the service counts it, the lock stays locked down.
    const firstLift = await submit(owner, claimed.id, { type: 'LIFT_LOCKDOWN', lockdownId, locks: [claimed.id] });
    assert.equal(firstLift.status, 200, firstLift.text);
    assert.deepEqual(firstLift.body.locks, [{ lockId: claimed.id, lifts: 1, lifted: false }]);
    assert.equal((await submit(owner, claimed.id, { type: 'LIFT_LOCKDOWN', lockdownId, locks: [claimed.id] })).status, 409, 'the same administrator twice');
    // Straight to the lock with the one lift, the same lift twice and a lift by a USER: still not enough.
    const liftToken = (await lockConfig(t.service.ctx.db.kysely, claimed.id))!.lockdown!.lifts[0]!;
    const userLift = signed(responder, claimed.id, { type: 'LIFT_LOCKDOWN', lockdownId, locks: [claimed.id] } as unknown as Operation);
    await t.service.ctx.link.publishConfig(claimed.id, { ...withoutLockdown, version: config.version + 200, lockdown: { token: lockdown.token, lifts: [liftToken, liftToken, userLift] } } as never);
    await eventually(() => sim.configVersion === config.version + 200, 'the config with one lift applied');
    assert.equal(sim.lockdownId, lockdownId);
    assert.match(await bypass(owner), /locked_down/);

    // The second administrator's lift: lifted at the service and, from the config, at the lock.
    const secondLift = await submit(second, claimed.id, { type: 'LIFT_LOCKDOWN', lockdownId, locks: [claimed.id] });
    assert.equal(secondLift.status, 200, secondLift.text);
    assert.deepEqual(secondLift.body.locks, [{ lockId: claimed.id, lifts: 2, lifted: true }]);
    const lifted = (await lockConfig(t.service.ctx.db.kysely, claimed.id))!;
    await t.service.ctx.link.publishConfig(claimed.id, { ...lifted, version: config.version + 300 } as never);
    await eventually(() => sim.lockdownId === null, 'the lock lifted it');
    assert.equal(await bypass(owner), 'ok');
    assert.equal((await execute(t, owner, claimed.id, signed(owner, claimed.id, unlock))).status, 200);
    assert.ok((await currentVersion()) >= config.version);

    const types = (await auditEntriesOf(t, claimed.id)).map((entry) => entry.type).filter((type) => type.startsWith('LOCKDOWN_') && type !== 'LOCKDOWN_REPORTED');
    assert.deepEqual(types, ['LOCKDOWN_DECLARED', 'LOCKDOWN_LIFT_SIGNED', 'LOCKDOWN_LIFT_SIGNED', 'LOCKDOWN_LIFTED']);
  });

  it('locks down only locks the signer administers, named by the lock, its site or the signer', async () => {
    const other = await claimLock(t, second);
    const lockdownId = randomUUID();
    assert.equal((await submit(owner, other.id, { type: 'LOCKDOWN', lockdownId, locks: [other.id] })).status, 404);
    assert.equal((await submit(responder, claimed.id, { type: 'LOCKDOWN', lockdownId, locks: [claimed.id] })).status, 403);
    const mine = await claimLock(t, owner);
    assert.equal((await submit(owner, claimed.id, { type: 'LOCKDOWN', lockdownId, locks: [claimed.id, mine.id] })).status, 400);
    const all = await submit(owner, owner.userId, { type: 'LOCKDOWN', lockdownId, locks: [claimed.id, mine.id] });
    assert.equal(all.status, 200, all.text);
    assert.equal((await submit(owner, owner.userId, { type: 'LOCKDOWN', lockdownId: randomUUID(), locks: [mine.id] })).status, 409, 'already locked down');
  });
});
