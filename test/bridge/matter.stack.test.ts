import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startVirtualMatterLock, type VirtualMatterLock } from '../helpers/matter-lock.js';
import { eventually } from '../helpers/wait.js';
import { execute, signed, unlock } from '../execute/support.js';
import { codeOnLock, makeCode } from '../keypad/support.js';
import { assertRefusedAtTheEdge, lockJson, logged, ready, startBridgeRig, type BridgeRig } from './support.js';

/**
 * `latchkey bridge` as a Matter controller in front of matter.js's own virtual door lock
 * (test/helpers/matter-lock.ts, another process on 127.0.0.1, paired by its setup code and known
 * address), the real service with its embedded broker. Run once (a `.stack.test.ts`).
 */

const lockOp = { type: 'MUTATE_LOCK', locked: true } as const;

describe('latchkey bridge with a Matter lock', () => {
  let rig: BridgeRig;
  let device: VirtualMatterLock;
  /** A lock without PIN users: no keypad. */
  let plain: VirtualMatterLock;
  let id: string;
  const known = (lock: VirtualMatterLock) => ({ matter: { pairingCode: lock.manualPairingCode, address: { ip: '127.0.0.1', port: lock.port } } });
  before(async () => {
    device = await startVirtualMatterLock();
    plain = await startVirtualMatterLock({ pins: false });
    rig = await startBridgeRig([known(device), known(plain)]);
    id = rig.locks[0]!.id;
  });
  after(async () => {
    await rig?.close();
    await device?.stop();
    await plain?.stop();
  });

  it('pairs from the setup code, unlocks and locks with timed invokes, and reports the door', async () => {
    const { t, admin } = rig;
    await ready(rig, id);
    const windowsBefore = (await device.timedWindows()).length;
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 200);
    // The timed invoke's window ends at the command's deadline (LOCK_REPLY_TIMEOUT_MS, 1.5 s here),
    // not at matter.js's default 10 s: a lock that gets the command later refuses it.
    const windows = (await device.timedWindows()).slice(windowsBefore);
    assert.ok(windows.length === 1 && windows[0]! > 0 && windows[0]! <= 1500, `the unlock's timed window, ms: ${JSON.stringify(windows)}`);
    const unlocked = await eventually(async () => {
      const lock = await lockJson(rig, id);
      return lock.state.locked === false ? lock : undefined;
    }, 'unlocked, as the lock reports it', 15_000);
    assert.deepEqual(unlocked.device, { kind: 'matter', capabilities: ['keypad', 'doorSensor', 'battery', 'jamDetection'] });
    assert.equal(unlocked.state.doorOpen, false);
    assert.equal((await execute(t, admin, id, signed(admin, id, lockOp))).status, 200);
    await device.act({ do: 'door', open: true });
    await eventually(async () => ((await lockJson(rig, id)).state.doorOpen === true ? true : undefined), 'door open shown', 15_000);
    // The lock's LockOperation events: taken once each, by event number.
    await eventually(() => rig.log.lines.filter((line) => line.msg === 'operation' && line.lockId === id && line.source === 'remote').length === 2 || undefined, 'two remote operations', 15_000);
  });

  it('refuses at the edge, with the service bypassed: a replayed jti, a revoked user, a user outside their window', () => assertRefusedAtTheEdge(rig, id));

  it('answers 503 while the lock is away, 504 when it acts too late (and undoes it), and comes back by itself', async () => {
    const { t, admin } = rig;
    await ready(rig, id);
    assert.equal((await execute(t, admin, id, signed(admin, id, lockOp))).status, 200);
    await device.act({ do: 'slow', ms: 2500 });
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 504);
    await eventually(() => logged(rig, 'late_unlock_reversed', id), 'the late unlock reversed', 10_000);
    await eventually(async () => ((await lockJson(rig, id)).state.locked === true ? true : undefined), 'locked again', 15_000);

    await device.stop();
    await eventually(() => !t.service.ctx.link.isOnline(id), 'the away lock offline to the service', 15_000);
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 503);
    await device.start();
    await ready(rig, id);
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 200);
  });

  it('says once that a lock without PIN users has no keypad, and its codes fail as no_keypad, not as a lock unreachable', async () => {
    const plainId = rig.locks[1]!.id;
    await ready(rig, plainId);
    const shown = await eventually(async () => {
      const { device: said } = await lockJson(rig, plainId);
      return said !== undefined && !said.capabilities.includes('keypad') ? said : undefined;
    }, 'the lock announced without a keypad', 30_000);
    assert.deepEqual(shown, { kind: 'matter', capabilities: ['doorSensor', 'battery', 'jamDetection'] });
    for (const guest of ['Window cleaner', 'Painter']) {
      const made = await makeCode(rig.t, rig.admin, [plainId], { guest });
      const sync = await eventually(async () => {
        const on = (await codeOnLock(rig.t, rig.admin, made.id, plainId))?.sync;
        return on?.state === 'failed' ? on : undefined;
      }, 'the code failed on the lock', 30_000);
      assert.match(sync.error ?? '', /^no_keypad:/);
    }
    // Said once (the lock is not read again), and never a slot count asked of a lock that cannot be reached.
    const said = rig.log.lines.filter((line) => line.lockId === plainId && /keypad/.test(String(line.msg)));
    assert.deepEqual(said.map((line) => line.msg), ['keypad_absent']);
  });
});
