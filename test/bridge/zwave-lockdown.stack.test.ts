import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { runBridge } from '../../src/bridge/run-bridge.js';
import { lockConfig } from '../../src/locks/config.js';
import { createVerifiedUser, shareLock } from '../helpers/locks.js';
import { sdkLocalUnlock, sdkLockOperation, sdkOperationToken } from '../helpers/sdk-wire.js';
import { eventually } from '../helpers/wait.js';
import { startZwaveStack, type ZwaveStack } from '../helpers/zwave-stack.js';
import { certify, execute, signed, unlock, type Operation, type Signer } from '../execute/support.js';
import { lockJson, ready, refusedWith, startBridgeRig, type BridgeRig } from './support.js';

/**
 * A lockdown at the bridge (issue 31 points 3 and 4, device protocol 1.4) in front of Z-Wave JS's
 * mock door lock: the bridge drives the Z-Wave bolt locked, refuses a valid signed unlock however
 * it arrives (straight on the lock link, bypassing the service, or on its LAN endpoint), keeps the
 * lockdown across its own restart whatever config it is then handed, and lifts it only once lifts
 * of k distinct administrators reach it.
 */
describe('latchkey bridge: lockdown (Z-Wave)', () => {
  let rig: BridgeRig;
  let stack: ZwaveStack;
  let id: string;
  let second: Signer;
  before(async () => {
    stack = await startZwaveStack([2]);
    rig = await startBridgeRig([{ zwave: { nodeId: 2 } }], stack.url, { lan: true });
    id = rig.locks[0]!.id;
    second = await certify(rig.t, await createVerifiedUser(rig.t));
    await shareLock(rig.t, id, rig.admin, second.userId, { role: 'ADMIN' });
  });
  after(async () => {
    await rig?.close();
    await stack?.stop();
  });

  const submit = (signer: Signer, operation: object) =>
    rig.t.api.post('/lockdown', { token: signer.authToken, rawBody: signed(signer, id, operation as Operation), contentType: 'application/jwt' });
  const bypass = () => rig.t.service.ctx.link.sendCommand(id, signed(rig.admin, id, unlock), unlock);
  const overLan = async () => {
    const lanUrl = await rig.bridge.lanStarted;
    assert.ok(lanUrl !== null);
    return sdkLocalUnlock(lanUrl, sdkOperationToken(rig.admin, id, sdkLockOperation(false), { now: Math.floor(Date.now() / 1000) }));
  };
  const boltLocked = (locked: boolean) => eventually(async () => ((await lockJson(rig, id)).state.locked === locked ? true : undefined), `the Z-Wave bolt ${locked ? 'locked' : 'unlocked'}`, 15_000);
  const lockedDown = (on: boolean) => eventually(async () => ((await lockJson(rig, id)).state.lockedDown === on ? true : undefined), `the bridge says ${on ? 'locked down' : 'not locked down'}`, 15_000);

  it('drives the bolt locked, refuses unlocks that bypass the service, survives a restart, and lifts only with k signatures', async () => {
    const { t, admin } = rig;
    await ready(rig, id);
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 200);
    await boltLocked(false);

    const lockdownId = randomUUID();
    const declared = await submit(admin, { type: 'LOCKDOWN', lockdownId, locks: [id], liftQuorum: 2 });
    assert.equal(declared.status, 200, declared.text);
    await lockedDown(true);
    await boltLocked(true);

    // A valid signed unlock, bypassing the service: on the lock link and on the bridge's LAN endpoint. The bolt stays locked.
    await assert.rejects(bypass(), refusedWith(/locked_down/));
    const lan = await overLan();
    assert.notEqual(lan.status, 200);
    assert.match(JSON.stringify(lan.body), /locked.down/);
    assert.equal((await lockJson(rig, id)).state.locked, true);

    // The bridge restarts and is handed a config without the lockdown (as a compromised service could send): still locked down.
    const config = (await lockConfig(t.service.ctx.db.kysely, id))!;
    const { lockdown, ...withoutLockdown } = config;
    assert.ok(lockdown);
    await rig.bridge.close();
    rig.bridge = runBridge({ config: rig.config, logger: rig.log.logger });
    await ready(rig, id);
    await t.service.ctx.link.publishConfig(id, { ...withoutLockdown, version: config.version + 100 } as never);
    await eventually(() => rig.bridge.status()[0]!.configVersion === config.version + 100, 'the forged config applied', 15_000);
    await assert.rejects(bypass(), refusedWith(/locked_down/));
    assert.notEqual((await overLan()).status, 200);
    await lockedDown(true);

    // One administrator's lift of the two needed, the same lift twice, and a lift by a mere user: not enough at the bridge.
    const first = await submit(admin, { type: 'LIFT_LOCKDOWN', lockdownId, locks: [id] });
    assert.deepEqual(first.body.locks, [{ lockId: id, lifts: 1, lifted: false }]);
    const user = await certify(t, await createVerifiedUser(t));
    await shareLock(t, id, admin, user.userId);
    const current = (await lockConfig(t.service.ctx.db.kysely, id))!;
    const userLift = signed(user, id, { type: 'LIFT_LOCKDOWN', lockdownId, locks: [id] } as unknown as Operation);
    const oneLift = current.lockdown!.lifts[0]!;
    await t.service.ctx.link.publishConfig(id, { ...current, version: current.version + 200, lockdown: { token: lockdown.token, lifts: [oneLift, oneLift, userLift] } } as never);
    await eventually(() => rig.bridge.status()[0]!.configVersion === current.version + 200, 'the config with one lift applied', 15_000);
    await assert.rejects(bypass(), refusedWith(/locked_down/));
    await lockedDown(true);

    // The second administrator's lift: the service sends both, the bridge lifts it, and an unlock goes through again.
    const secondLift = await submit(second, { type: 'LIFT_LOCKDOWN', lockdownId, locks: [id] });
    assert.deepEqual(secondLift.body.locks, [{ lockId: id, lifts: 2, lifted: true }]);
    const lifted = (await lockConfig(t.service.ctx.db.kysely, id))!;
    await t.service.ctx.link.publishConfig(id, { ...lifted, version: current.version + 300 } as never);
    await lockedDown(false);
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 200);
    await boltLocked(false);
  });
});
