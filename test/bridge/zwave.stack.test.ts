import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BridgeConfig } from '../../src/config/bridge.js';
import { runBridge, type RunningBridge } from '../../src/bridge/run-bridge.js';
import { startService, type RunningService } from '../../src/server.js';
import { Api } from '../helpers/http.js';
import { capturingLogger } from '../helpers/mqtt.js';
import { auditEntriesOf, claimLock, createVerifiedUser, revokeLock, shareLock, type ClaimedLock } from '../helpers/locks.js';
import { freePort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { startZwaveStack, type ZwaveStack } from '../helpers/zwave-stack.js';
import { certify, execute, signed, unlock, type Signer } from '../execute/support.js';

/**
 * `latchkey bridge` in front of Z-Wave JS itself: Z-Wave JS's mock controller and mock door locks
 * behind a real Z-Wave JS Server (test/helpers/zwave-stack.ts), the real service with its
 * embedded broker. The bridge is the only thing between them. Run once (a `.stack.test.ts`): its
 * subject is the edge and the lock's stack, not the service's storage.
 */

const lockOp = { type: 'MUTATE_LOCK', locked: true } as const;

interface Rig {
  t: TestService;
  stack: ZwaveStack;
  bridge: RunningBridge;
  admin: Signer;
  log: ReturnType<typeof capturingLogger>;
  /** The lock of each node. */
  locks: Map<number, ClaimedLock>;
  close(): Promise<void>;
}

/** The service (embedded broker on a fixed port), Z-Wave JS's stack with `nodes`, and a bridge driving one claimed lock per node. */
async function startRig(nodes: number[]): Promise<Rig> {
  const t = await startTestService({ CERT_CHECK: 'never', LOCK_REPLY_TIMEOUT_MS: '1500', MQTT_PORT: String(await freePort()) });
  const admin = await certify(t, await createVerifiedUser(t));
  const stack = await startZwaveStack(nodes);
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-bridge-'));
  const locks = new Map<number, ClaimedLock>();
  for (const node of nodes) locks.set(node, await claimLock(t, admin, { name: `Z-Wave ${node}` }));
  const config: BridgeConfig = {
    mqttUrl: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`,
    topicPrefix: 'locks',
    dataDir: join(dir, 'data'),
    trustedRoot: t.service.ctx.pki.rootCertificate,
    lockReplyTimeoutMs: 1500,
    zwave: { url: stack.url, pingSeconds: 0.5 },
    locks: nodes.map((node) => ({ id: locks.get(node)!.id, secret: locks.get(node)!.secret, zwave: { nodeId: node } })),
    logLevel: 'debug',
  };
  const log = capturingLogger();
  const bridge = runBridge({ config, logger: log.logger });
  return {
    t, stack, bridge, admin, log, locks,
    async close() {
      await bridge.close();
      await stack.stop();
      await t.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once the lock is online to `service` and the bridge holds the config version the service has for it. */
async function ready(rig: Rig, id: string, service: RunningService = rig.t.service): Promise<void> {
  await eventually(() => service.ctx.link.isOnline(id), 'bridged lock online', 15_000);
  const wanted = (await service.ctx.db.kysely.selectFrom('locks').select('config_version').where('id', '=', id).executeTakeFirstOrThrow()).config_version;
  await eventually(() => rig.bridge.status().find((s) => s.id === id)?.configVersion === wanted, 'config applied on the bridge', 10_000);
}

const lockJson = async (rig: Rig, id: string) => (await rig.t.api.get(`/device/${id}`, { token: rig.admin.authToken })).body;
const logged = (rig: Rig, msg: string, lockId: string) => rig.log.lines.some((line) => line.msg === msg && line.lockId === lockId);
const refusedWith = (reason: RegExp) => (err: { status?: number; message?: string }) => err.status === 409 && reason.test(err.message ?? '');

describe('latchkey bridge with Z-Wave JS', () => {
  let rig: Rig;
  before(async () => { rig = await startRig([2, 3, 4]); });
  after(() => rig?.close());

  it('unlocks and locks a Z-Wave lock; its kind, battery, door, jam, tamper and keypad use reach the service', async () => {
    const { t, stack, admin } = rig;
    const { id } = rig.locks.get(2)!;
    await ready(rig, id);
    const res = await execute(t, admin, id, signed(admin, id, unlock));
    assert.equal(res.status, 200, res.text);
    const unlocked = await eventually(async () => {
      const lock = await lockJson(rig, id);
      return lock.state.locked === false && lock.device !== undefined ? lock : undefined;
    }, 'unlocked, as the lock reports it');
    assert.deepEqual(unlocked.device, { kind: 'zwave', capabilities: ['keypad', 'doorSensor', 'battery', 'jamDetection'] });
    assert.equal(unlocked.state.battery, 90);

    assert.equal((await execute(t, admin, id, signed(admin, id, lockOp))).status, 200);
    await stack.act(2, { do: 'door', open: false });
    await stack.act(2, { do: 'battery', level: 41 });
    await stack.act(2, { do: 'keypad', slot: 3, locked: false });
    await eventually(async () => {
      const { state } = await lockJson(rig, id);
      return state.battery === 41 && state.doorOpen === false && state.locked === false ? true : undefined;
    }, 'door, battery and keypad unlock shown');
    assert.ok(rig.log.lines.some((line) => line.msg === 'operation' && line.lockId === id && line.source === 'keypad' && line.slot === 3));
    await stack.act(2, { do: 'jam' });
    await stack.act(2, { do: 'tamper' });
    await eventually(async () => {
      const { state } = await lockJson(rig, id);
      return state.jammed === true && state.tamper === true ? true : undefined;
    }, 'jam and tamper shown');
    const requested = (await auditEntriesOf(t, id)).filter((e) => e.rejected === 0 && e.actor_user_id === admin.userId && (e.type === 'DOOR_UNLOCK' || e.type === 'DOOR_LOCK'));
    assert.deepEqual(requested.map((e) => e.type), ['DOOR_UNLOCK', 'DOOR_LOCK']);
  });

  it('refuses at the edge, with the service bypassed: a replayed jti, a revoked user, a user outside their window', async () => {
    const { t, admin } = rig;
    const { id } = rig.locks.get(3)!;
    const revoked = await certify(t, await createVerifiedUser(t));
    const later = await certify(t, await createVerifiedUser(t));
    await shareLock(t, id, admin, revoked.userId);
    await shareLock(t, id, admin, later.userId, { start: Math.floor(Date.now() / 1000) + 3600 });
    await ready(rig, id);

    // Used once through the service, then published again as a stolen service credential could.
    const token = signed(admin, id, unlock);
    assert.equal((await execute(t, admin, id, token)).status, 200);
    await assert.rejects(t.service.ctx.link.sendCommand(id, token, unlock), refusedWith(/replayed/));

    const revokedToken = signed(revoked, id, unlock);
    await revokeLock(t, id, admin, [revoked.userId]);
    await ready(rig, id);
    await assert.rejects(t.service.ctx.link.sendCommand(id, revokedToken, unlock), refusedWith(/not_enrolled/));
    await assert.rejects(t.service.ctx.link.sendCommand(id, signed(later, id, unlock), unlock), refusedWith(/outside_user_window/));
    // The service refuses that user itself too.
    assert.equal((await execute(t, later, id, signed(later, id, unlock))).status, 403);
  });

  it('answers 503 while the lock is away and 504 when it does not act in time, and never unlocks late', async () => {
    const { t, stack, admin } = rig;
    const { id } = rig.locks.get(4)!;
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
    await eventually(async () => ((await lockJson(rig, id)).state.locked === true ? true : undefined), 'locked again');
  });
});

describe('latchkey bridge when everything goes away', () => {
  let rig: Rig;
  before(async () => { rig = await startRig([2]); });
  after(() => rig?.close());

  it('comes back after Z-Wave JS Server, then the service with its broker, go away', async () => {
    const { t, stack, admin } = rig;
    const { id } = rig.locks.get(2)!;
    await ready(rig, id);
    await stack.stop();
    await eventually(() => !t.service.ctx.link.isOnline(id), 'offline while Z-Wave JS Server is away', 15_000);
    await stack.start();
    await ready(rig, id);
    assert.equal((await execute(t, admin, id, signed(admin, id, unlock))).status, 200);

    // The service and its embedded broker go away; another instance comes up with the broker on the same port.
    await t.service.close();
    const again = await startService(t.config);
    try {
      await ready(rig, id, again);
      const res = await new Api(again.url).post(`/device/${id}/execute`, { token: admin.authToken, rawBody: signed(admin, id, unlock), contentType: 'application/json;charset=UTF-8' });
      assert.equal(res.status, 200, res.text);
    } finally {
      await again.close();
    }
  });
});
