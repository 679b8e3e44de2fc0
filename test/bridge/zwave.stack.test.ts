import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startService } from '../../src/server.js';
import { TEST_SERVICE_OPTIONS } from '../helpers/service.js';
import { Api } from '../helpers/http.js';
import { auditEntriesOf } from '../helpers/locks.js';
import { eventually } from '../helpers/wait.js';
import { startZwaveStack, type ZwaveStack } from '../helpers/zwave-stack.js';
import { execute, signed, unlock } from '../execute/support.js';
import { assertRefusedAtTheEdge, lockJson, logged, loggedFromNow, ready, startBridgeRig, type BridgeRig } from './support.js';

/**
 * `latchkey bridge` in front of Z-Wave JS itself: Z-Wave JS's mock controller and mock door locks
 * behind a real Z-Wave JS Server (test/helpers/zwave-stack.ts), the real service with its
 * embedded broker. The bridge is the only thing between them. Run once (a `.stack.test.ts`): its
 * subject is the edge and the lock's stack, not the service's storage.
 */

const lockOp = { type: 'MUTATE_LOCK', locked: true } as const;

/** A rig whose locks are Z-Wave nodes 2, 3, … of a stack of their own. */
async function zwaveRig(nodes: number[]): Promise<{ rig: BridgeRig; stack: ZwaveStack; lockOf(node: number): string }> {
  const stack = await startZwaveStack(nodes);
  const rig = await startBridgeRig(nodes.map((nodeId) => ({ zwave: { nodeId } })), stack.url);
  const close = rig.close;
  rig.close = async () => {
    await close();
    await stack.stop();
  };
  return { rig, stack, lockOf: (node) => rig.locks[nodes.indexOf(node)]!.id };
}

describe('latchkey bridge with Z-Wave JS', () => {
  let rig: BridgeRig;
  let stack: ZwaveStack;
  let lockOf: (node: number) => string;
  before(async () => ({ rig, stack, lockOf } = await zwaveRig([2, 3, 4, 5])));
  after(() => rig?.close());

  it('unlocks and locks a Z-Wave lock; its kind, battery, door, jam, tamper and keypad use reach the service', async () => {
    const { t, admin } = rig;
    const id = lockOf(2);
    await ready(rig, id);
    const res = await execute(t, admin, id, signed(admin, id, unlock));
    assert.equal(res.status, 200, res.text);
    const unlocked = await eventually(async () => {
      const lock = await lockJson(rig, id);
      return lock.state.locked === false && lock.device !== undefined ? lock : undefined;
    }, 'unlocked, as the lock reports it', 15_000);
    assert.deepEqual(unlocked.device, { kind: 'zwave', capabilities: ['keypad', 'doorSensor', 'battery', 'jamDetection'] });
    assert.equal(unlocked.state.battery, 90);

    assert.equal((await execute(t, admin, id, signed(admin, id, lockOp))).status, 200);
    await stack.act(2, { do: 'door', open: false });
    await stack.act(2, { do: 'battery', level: 41 });
    await stack.act(2, { do: 'keypad', slot: 3, locked: false });
    await eventually(async () => {
      const { state } = await lockJson(rig, id);
      return state.battery === 41 && state.doorOpen === false && state.locked === false ? true : undefined;
    }, 'door, battery and keypad unlock shown', 15_000);
    // The lock sends its bolt report before the notification naming the keypad and slot: wait for that too.
    await eventually(() => rig.log.lines.some((line) => line.msg === 'operation' && line.lockId === id && line.source === 'keypad' && line.slot === 3), 'the keypad operation with its slot', 15_000);
    await stack.act(2, { do: 'jam' });
    await stack.act(2, { do: 'tamper' });
    await eventually(async () => {
      const { state } = await lockJson(rig, id);
      return state.jammed === true && state.tamper === true ? true : undefined;
    }, 'jam and tamper shown', 15_000);
    const requested = (await auditEntriesOf(t, id)).filter((e) => e.rejected === 0 && e.actor_user_id === admin.userId && (e.type === 'DOOR_UNLOCK' || e.type === 'DOOR_LOCK'));
    assert.deepEqual(requested.map((e) => e.type), ['DOOR_UNLOCK', 'DOOR_LOCK']);
  });

  it('refuses at the edge, with the service bypassed: a replayed jti, a revoked user, a user outside their window', () => assertRefusedAtTheEdge(rig, lockOf(3)));

  it('answers 503 while the lock is away and 504 when it does not act in time, and never unlocks late', async () => {
    const { t, admin } = rig;
    const id = lockOf(4);
    await ready(rig, id);
    await stack.act(4, { do: 'away' });
    await eventually(() => !t.service.ctx.link.isOnline(id), 'the away lock offline to the service', 15_000);
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 503);
    await stack.act(4, { do: 'back' });
    await ready(rig, id);
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 200);
    assert.equal((await execute(t, admin, id, signed(admin, id, lockOp))).status, 200);

    // The lock takes the command but moves only after the service has stopped waiting.
    await stack.act(4, { do: 'slow', ms: 2500 });
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 504);
    await eventually(() => logged(rig, 'late_unlock_reversed', id), 'the late unlock reversed', 10_000);
    await eventually(async () => ((await lockJson(rig, id)).state.locked === true ? true : undefined), 'locked again', 15_000);
  });

  it('stays online through one ping left unanswered, and goes offline after two in a row', async () => {
    const { t, admin } = rig;
    const id = lockOf(3);
    await ready(rig, id);
    const mark = rig.log.lines.length;
    const since = loggedFromNow(rig, id);
    const told = (err: Error) => {
      throw new Error(`${err.message}; the bridge since: ${JSON.stringify(rig.log.lines.slice(mark).filter((line) => line.lockId === id).map(({ time, msg, missed }) => ({ time, msg, missed })))}`);
    };
    // Z-Wave JS declares the node dead at once (it sends a ping once); the bridge waits for its next ping.
    await stack.act(3, { do: 'missPings', count: 1 });
    await eventually(() => since('ping_answered').length > 0, 'a ping answered after the missed one', 30_000).catch(told);
    assert.deepEqual(since('ping_missed').map((line) => line.missed), [1]);
    assert.deepEqual(since('unreachable'), [], 'never offline');
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 200);

    // A ping may go unanswered on its own on a loaded machine: only the two withheld ones are counted.
    const beforeTwo = since('ping_missed').length;
    await stack.act(3, { do: 'missPings', count: 2 });
    await eventually(() => since('unreachable').length > 0, 'offline after two pings unanswered', 30_000).catch(told);
    assert.deepEqual(since('ping_missed').slice(beforeTwo).map((line) => line.missed).slice(-2), [1, 2]);
    // Back once it answers again (a ping timed out on a loaded machine may take it away once more meanwhile: 503, then 200).
    await ready(rig, id);
    await eventually(async () => ((await execute(t, admin, id, signed(admin, id, lockOp))).status === 200 ? true : undefined), 'a lock command carried out once it is back', 30_000);
  });

  it('relocks after an unlock even when the relock is lost on the radio: tried again until the bolt is locked', async () => {
    const { t, admin } = rig;
    const id = lockOf(5);
    await ready(rig, id);
    const since = loggedFromNow(rig, id);
    // The relock's Set (3 s after the unlock) is lost, each of Z-Wave JS's three transmissions of it:
    // Z-Wave JS rejects it, and the bridge tries again. The unlock's own Set goes through.
    await stack.act(5, { do: 'missLocks', count: 3 });
    assert.equal((await execute(t, admin, id, signed(admin, id, { type: 'MUTATE_LOCK', locked: false, duration: 3 }))).status, 200);
    await eventually(async () => ((await lockJson(rig, id)).state.locked === false ? true : undefined), 'unlocked', 15_000);
    await eventually(() => since('schedule_failed').some((line) => line.retryInMs !== undefined), 'the lost relock to be tried again', 30_000);
    await eventually(async () => ((await lockJson(rig, id)).state.locked === true ? true : undefined), 'locked again after the lost relock', 30_000);
    assert.ok(since('schedule').length >= 2, 'the relock sent again');
  });
});

describe('latchkey bridge with Z-Wave JS when everything goes away', () => {
  let rig: BridgeRig;
  let stack: ZwaveStack;
  let lockOf: (node: number) => string;
  before(async () => ({ rig, stack, lockOf } = await zwaveRig([2])));
  after(() => rig?.close());

  it('comes back after Z-Wave JS Server, then the service with its broker, go away', async () => {
    const { t, admin } = rig;
    const id = lockOf(2);
    await ready(rig, id);
    await stack.stop();
    await eventually(() => !t.service.ctx.link.isOnline(id), 'offline while Z-Wave JS Server is away', 15_000);
    await stack.start();
    await ready(rig, id);
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 200);

    // The service and its embedded broker go away; another instance comes up with the broker on the same port.
    await t.service.close();
    const again = await startService(t.config, TEST_SERVICE_OPTIONS);
    try {
      await ready(rig, id, again);
      const res = await new Api(again.url).post(`/device/${id}/execute`, { token: admin.authToken, rawBody: signed(admin, id, unlock), contentType: 'application/json;charset=UTF-8' });
      assert.equal(res.status, 200, res.text);
    } finally {
      await again.close();
    }
  });
});
