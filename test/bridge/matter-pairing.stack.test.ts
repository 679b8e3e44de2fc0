import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { latchkey } from '../helpers/cli.js';
import { startVirtualMatterLocks, type VirtualMatterLockDevice, type VirtualMatterLocks } from '../helpers/matter-lock.js';
import { eventually } from '../helpers/wait.js';
import { execute, signed, unlock } from '../execute/support.js';
import { ready, startBridgeRig, type BridgeRig, type RealLock } from './support.js';

/**
 * Pairing and removing Matter locks: `latchkey bridge` as a Matter controller in front of
 * matter.js's own virtual door locks (test/helpers/matter-lock.ts, another process on 127.0.0.1),
 * paired from the QR payload (`MT:…`) or the manual pairing code, then removed: while the bridge
 * runs (RunningBridge.unpair) or, as docs/bridge.md tells a person, with the bridge stopped
 * (`latchkey bridge unpair`). The real service with its embedded broker. Run once (a `.stack.test.ts`).
 */

const known = (device: VirtualMatterLockDevice) => ({ ip: '127.0.0.1', port: device.port });
const pairings = async (rig: BridgeRig) => JSON.parse(await readFile(join(rig.config.dataDir, 'matter', 'paired.json'), 'utf8')) as Record<string, string>;
/** The manual pairing code as a label prints it: 1234-567-8901. */
const dashed = (code: string) => `${code.slice(0, 4)}-${code.slice(4, 7)}-${code.slice(7)}`;

async function matterRig(codes: Array<(device: VirtualMatterLockDevice) => string>): Promise<{ rig: BridgeRig; devices: VirtualMatterLocks }> {
  const devices = await startVirtualMatterLocks(codes.length);
  const real: RealLock[] = codes.map((code, index) => ({ matter: { pairingCode: code(devices.locks[index]!), address: known(devices.locks[index]!) } }));
  const rig = await startBridgeRig(real);
  return { rig, devices };
}

describe('latchkey bridge pairing Matter locks, and removing one while it runs', () => {
  let rig: BridgeRig;
  let devices: VirtualMatterLocks;
  before(async () => ({ rig, devices } = await matterRig([(d) => d.qrPairingCode, (d) => d.manualPairingCode, (d) => d.manualPairingCode])));
  after(async () => {
    await rig?.close();
    await devices?.stop();
  });

  it('pairs a lock from its QR payload and one from its manual pairing code: each joins the bridge\'s fabric and unlocks', async () => {
    const { t, admin } = rig;
    assert.match(devices.locks[0]!.qrPairingCode, /^MT:/);
    for (const [index, lock] of rig.locks.slice(0, 2).entries()) {
      await ready(rig, lock.id);
      assert.equal(await devices.locks[index]!.fabrics(), 1, `lock ${index} on the bridge's fabric`);
      assert.equal((await execute(t, admin, lock.id, signed(admin, lock.id, unlock))).status, 200);
    }
    const paired = await pairings(rig);
    assert.ok(paired[rig.locks[0]!.id] !== undefined && paired[rig.locks[1]!.id] !== undefined);
    assert.notEqual(paired[rig.locks[0]!.id], paired[rig.locks[1]!.id]);
  });

  it('removes a paired lock: decommissioned from the bridge\'s fabric, offline to the service at once, forgotten by the bridge', async () => {
    const { t, admin } = rig;
    const removed = rig.locks[2]!.id;
    const kept = rig.locks[1]!.id;
    await ready(rig, removed);
    await ready(rig, kept);
    assert.deepEqual(await rig.bridge.unpair(removed), { unpaired: true, decommissioned: true });
    await eventually(() => !t.service.ctx.link.isOnline(removed), 'the removed lock offline to the service');
    assert.equal(await devices.locks[2]!.fabrics(), 0, 'the lock no longer on the bridge\'s fabric');
    assert.equal((await pairings(rig))[removed], undefined);
    assert.equal((await execute(t, admin, removed, signed(admin, removed, unlock))).status, 503);
    assert.deepEqual(await rig.bridge.unpair(removed), { unpaired: false, decommissioned: false });
    // The others are untouched.
    assert.equal(t.service.ctx.link.isOnline(kept), true);
    assert.equal((await execute(t, admin, kept, signed(admin, kept, unlock))).status, 200);
  });
});

describe('latchkey bridge unpair, with the bridge stopped (docs/bridge.md)', () => {
  let rig: BridgeRig;
  let devices: VirtualMatterLocks;
  before(async () => ({ rig, devices } = await matterRig([(d) => dashed(d.manualPairingCode)])));
  after(async () => {
    await rig?.close();
    await devices?.stop();
  });

  it('decommissions the lock and forgets it; the lock stays offline', async () => {
    const { t } = rig;
    const id = rig.locks[0]!.id;
    await ready(rig, id);
    assert.equal(await devices.locks[0]!.fabrics(), 1);
    await rig.bridge.close();
    await eventually(() => !t.service.ctx.link.isOnline(id), 'offline once the bridge stopped');

    const configFile = join(rig.config.dataDir, '..', 'bridge.json');
    await writeFile(configFile, JSON.stringify({ dataDir: rig.config.dataDir, matter: { port: rig.config.matter.port }, locks: [] }));
    // Exits 0 only when it unpaired the lock (else 1). In this process (test/helpers/cli.ts): the
    // executable's own process is test/bridge/cli.unit.test.ts's subject.
    const unpair = await latchkey(['bridge', 'unpair', '--lock', id, '--config', configFile], { ...process.env, LOG_LEVEL: 'silent' });
    assert.equal(unpair.code, 0, unpair.stderr);
    assert.deepEqual(JSON.parse(unpair.stdout), { lockId: id, unpaired: true, decommissioned: true });
    assert.equal(await devices.locks[0]!.fabrics(), 0, 'the lock no longer on the bridge\'s fabric');
    assert.equal((await pairings(rig))[id], undefined);
    assert.equal(t.service.ctx.link.isOnline(id), false);
  });
});
