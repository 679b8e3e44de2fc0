import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BridgeConfig, BridgedLockConfig } from '../../src/config/bridge.js';
import { runBridge, type RunningBridge } from '../../src/bridge/run-bridge.js';
import type { RunningService } from '../../src/server.js';
import { capturingLogger } from '../helpers/mqtt.js';
import { claimLock, createVerifiedUser, type ClaimedLock } from '../helpers/locks.js';
import { freePort, freeUdpPort } from '../helpers/ports.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import assert from 'node:assert/strict';
import { revokeLock, shareLock } from '../helpers/locks.js';
import { certify, execute, signed, unlock, type Signer } from '../execute/support.js';

/** How a test's real lock is reached: what the bridge's configuration says of it. */
export type RealLock = Pick<BridgedLockConfig, 'zwave' | 'matter'>;

export interface BridgeRig {
  t: TestService;
  bridge: RunningBridge;
  admin: Signer;
  log: ReturnType<typeof capturingLogger>;
  /** The configuration the bridge runs with (its dataDir holds the Matter pairings, matter/paired.json). */
  config: BridgeConfig;
  /** The Latchkey lock claimed for each real lock, in order. */
  locks: ClaimedLock[];
  close(): Promise<void>;
}

/**
 * The service (embedded broker on a fixed port, so another instance can take it over; replies
 * awaited 1.5 s) and a bridge driving one claimed lock per real lock, with `zwaveUrl` for the
 * Z-Wave ones.
 */
export async function startBridgeRig(realLocks: RealLock[], zwaveUrl?: string, options: { lan?: boolean } = {}): Promise<BridgeRig> {
  const t = await startTestService({ CERT_CHECK: 'never', LOCK_REPLY_TIMEOUT_MS: '1500', MQTT_PORT: String(await freePort()) });
  const admin = await certify(t, await createVerifiedUser(t));
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-bridge-'));
  const locks: ClaimedLock[] = [];
  for (const [index] of realLocks.entries()) locks.push(await claimLock(t, admin, { name: `Real lock ${index}` }));
  const config: BridgeConfig = {
    mqttUrl: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`,
    topicPrefix: 'locks',
    dataDir: join(dir, 'data'),
    trustedRoot: t.service.ctx.pki.rootCertificate,
    lockReplyTimeoutMs: 1500,
    zwave: zwaveUrl === undefined ? null : { url: zwaveUrl, pingSeconds: 0.5 },
    matter: { port: await freeUdpPort(), pingSeconds: 0.5 },
    ...(options.lan === true ? { lan: { port: 0, host: '127.0.0.1' } } : {}),
    locks: realLocks.map((real, index) => ({ id: locks[index]!.id, secret: locks[index]!.secret, ...real })),
    logLevel: 'debug',
  };
  const log = capturingLogger();
  const rig: BridgeRig = {
    t, bridge: runBridge({ config, logger: log.logger }), admin, log, config, locks,
    async close() {
      // The bridge running now: a test may have stopped the first and started another on the same data directory.
      await rig.bridge.close();
      await t.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return rig;
}

/**
 * Resolves once the lock is online to `service` and the bridge holds the config version the
 * service has for it. A Matter lock's first connection may take a while on a loaded machine:
 * matter.js tries the operational addresses mDNS announces (link-local IPv6 first) before the
 * known one.
 */
export async function ready(rig: BridgeRig, id: string, service: RunningService = rig.t.service): Promise<void> {
  await eventually(() => service.ctx.link.isOnline(id), 'bridged lock online', 60_000).catch((err: Error) => {
    throw new Error(`${err.message}; the bridge's last words on it: ${lastWords(rig, id)}`);
  });
  const wanted = (await service.ctx.db.kysely.selectFrom('locks').select('config_version').where('id', '=', id).executeTakeFirstOrThrow()).config_version;
  await eventually(() => rig.bridge.status().find((s) => s.id === id)?.configVersion === wanted, 'config applied on the bridge', 10_000);
}

/** The bridge's last log lines about the lock (and its controller's), for a failure message. */
function lastWords(rig: BridgeRig, id: string): string {
  const about = rig.log.lines.filter((line) => line.lockId === id || line.lockId === undefined).slice(-12);
  return JSON.stringify(about.map(({ time, msg, err, state, retryInSeconds }) => ({ time, msg, err, state, retryInSeconds })));
}

export const lockJson = async (rig: BridgeRig, id: string) => (await rig.t.api.get(`/device/${id}`, { token: rig.admin.authToken })).body;
export const logged = (rig: BridgeRig, msg: string, lockId: string) => rig.log.lines.some((line) => line.msg === msg && line.lockId === lockId);

/** From now on: the bridge's log lines about the lock with message `msg`. */
export function loggedFromNow(rig: BridgeRig, lockId: string): (msg: string) => typeof rig.log.lines {
  const mark = rig.log.lines.length;
  return (msg) => rig.log.lines.slice(mark).filter((line) => line.lockId === lockId && line.msg === msg);
}
export const refusedWith = (reason: RegExp) => (err: { status?: number; message?: string }) => err.status === 409 && reason.test(err.message ?? '');

/**
 * The edge refuses what the service would, with the service bypassed (the link publishes the
 * command straight to the lock, as a stolen service credential could): a jti used once through the
 * service, a user revoked since they signed, a user whose window has not begun.
 */
export async function assertRefusedAtTheEdge(rig: BridgeRig, id: string): Promise<void> {
  const { t, admin } = rig;
  const revoked = await certify(t, await createVerifiedUser(t));
  const later = await certify(t, await createVerifiedUser(t));
  await shareLock(t, id, admin, revoked.userId);
  await shareLock(t, id, admin, later.userId, { start: Math.floor(Date.now() / 1000) + 3600 });
  await ready(rig, id);

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
}
