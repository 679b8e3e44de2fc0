import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BridgeConfig, BridgedLockConfig } from '../config/bridge.js';
import { lockTrustAnchor } from '../lock-edge/command-check.js';
import { LockEndpoint, type LockLog } from '../lock-edge/lock-endpoint.js';
import { lanEndpointUrl, startLanServer, type LanServer } from '../lock-edge/lan-server.js';
import { KeypadSlots } from './keypad-slots.js';
import type { RealLock } from './real-lock.js';
import type { Unpairing } from './matter/network.js';
import { MATTER_CAPABILITIES, MatterLock } from './matter/matter-lock.js';
import { ZwaveServerClient } from './zwave/server-client.js';
import { ZWAVE_CAPABILITIES, ZWAVE_CODE_DIGITS, ZwaveLock } from './zwave/zwave-lock.js';

/**
 * `latchkey bridge`: each real lock it drives is a Latchkey lock of its own (its id, its secret,
 * its MQTT session with its will) that speaks the device protocol to the service, so the service
 * needs no special case; behind it, the real lock through its stack (Z-Wave JS Server, or the
 * bridge's own Matter controller). Every command is checked here before the lock is touched
 * (src/lock-edge/: chain, claims, enrolment and windows, replay memory kept in the data
 * directory, deadline).
 *
 * Nothing has to be up when it starts: the broker, Z-Wave JS Server and each lock are connected
 * to whenever they can be, and again after they go away; a lock that cannot be reached is offline
 * to the service until it can.
 */

/** How long an uncommanded bolt move waits for the lock to say how it was made (keypad, hand) before its state goes out, milliseconds. */
const OPERATION_GRACE_MS = 2_000;

export interface RunningBridge {
  /** Each lock: whether its hardware can be reached, whether its MQTT session is up, the config version it holds. */
  status(): Array<{ id: string; reachable: boolean; connected: boolean; configVersion: number | null }>;
  /** Resolves once the Matter controller has started (at once without Matter locks); rejects when it cannot. */
  matterStarted: Promise<void>;
  /** Resolves with the URL each lock announces once the LAN endpoint listens (null without `lan`); rejects when it cannot listen. */
  lanStarted: Promise<string | null>;
  /** Decommissions a Matter lock and forgets it; it is offline to the service from then on. */
  unpair(lockId: string): Promise<Unpairing>;
  close(): Promise<void>;
}

export interface BridgeOptions {
  config: BridgeConfig;
  logger: Logger;
  /** Unix seconds. Default: the system clock. */
  now?: () => number;
}

interface BridgedLock {
  id: string;
  endpoint: LockEndpoint;
  bolt: RealLock;
  slots: KeypadSlots;
}

export function runBridge({ config, logger, now = () => Date.now() / 1000 }: BridgeOptions): RunningBridge {
  const locks: BridgedLock[] = [];
  const zwaveLocks = new Map<number, ZwaveLock>();
  const matterLocks: Array<{ config: BridgedLockConfig; lock: MatterLock }> = [];
  const zwave = config.zwave === null ? null : new ZwaveServerClient(config.zwave.url, {
    onState(nodes) {
      for (const lock of zwaveLocks.values()) lock.takeNodeState(nodes.find((node) => node.nodeId === lock.nodeId));
    },
    onEvent(event) {
      if (event.source === 'node' && event.nodeId !== undefined) zwaveLocks.get(event.nodeId)?.takeEvent(event);
    },
    onDisconnected() {
      for (const lock of zwaveLocks.values()) lock.serverLost();
    },
  }, logger);

  // Every lock of the bridge trusts the same root: parsed once (a certificate parse is ≈ 2 ms).
  const trustedRoot = config.trustedRoot === null ? undefined : lockTrustAnchor(config.trustedRoot);
  for (const lockConfig of config.locks) {
    const log: LockLog = (action, fields = {}) => logger.info({ lockId: lockConfig.id, ...fields }, action);
    let bolt: BridgedLock['bolt'];
    let capabilities: string[];
    let codeDigits: { min: number; max: number } | undefined;
    if (lockConfig.zwave !== undefined && zwave !== null) {
      const lock = new ZwaveLock(lockConfig.zwave.nodeId, zwave, now, log);
      zwaveLocks.set(lock.nodeId, lock);
      bolt = lock;
      capabilities = ZWAVE_CAPABILITIES;
      codeDigits = ZWAVE_CODE_DIGITS;
    } else if (lockConfig.matter !== undefined) {
      const lock = new MatterLock(lockConfig.id, now, log);
      matterLocks.push({ config: lockConfig, lock });
      bolt = lock;
      capabilities = MATTER_CAPABILITIES;
    } else continue;
    // Each real lock's own keypad: Z-Wave User Code slots, Matter users with a PIN.
    const slots = new KeypadSlots({ file: join(config.dataDir, 'keypad-slots', `${lockConfig.id}.json`), writer: bolt, now, log, refresh: () => void endpoint.refreshKeypad() });
    const endpoint = new LockEndpoint({
      id: lockConfig.id,
      secret: lockConfig.secret,
      mqttUrl: config.mqttUrl,
      topicPrefix: config.topicPrefix,
      device: { kind: lockConfig.zwave !== undefined ? 'zwave' : 'matter', capabilities, ...(codeDigits === undefined ? {} : { codeDigits }) },
      replayFile: join(config.dataDir, 'replays', `${lockConfig.id}.jsonl`),
      outboxFile: join(config.dataDir, 'outbox', `${lockConfig.id}.jsonl`),
      // Z-Wave tells a move at the keypad before saying it was the keypad; Matter sends its event beside the attribute.
      operationGraceMs: OPERATION_GRACE_MS,
      lockdownFile: join(config.dataDir, 'lockdowns', `${lockConfig.id}.json`),
      keypadFile: join(config.dataDir, 'keypads', `${lockConfig.id}.json`),
      defaultCommandMs: config.lockReplyTimeoutMs,
      now,
      log,
      ...(trustedRoot === undefined ? {} : { trustedRoot }),
      keypadMirror: slots,
    });
    bolt.listen({
      changed: () => endpoint.publishState(),
      doorChanged: (open) => {
        endpoint.publishDoorEvent(open);
        endpoint.publishState();
      },
      reachable: (reachable) => endpoint.setAvailable(reachable),
      operated: (operation) => endpoint.reportOperation(operation),
      keypadRefused: (kind, slot) => endpoint.reportKeypadRefusal(kind, slot),
      // A Matter lock says it once read: (Min|Max)PINCodeLength, or no PIN users at all.
      keypadDescribed: (digits) => endpoint.describeKeypad(digits),
    });
    // Offline to the service until the lock is seen through its stack.
    endpoint.setAvailable(false);
    endpoint.attach(bolt);
    locks.push({ id: lockConfig.id, endpoint, bolt, slots });
  }

  zwave?.start();
  // The LAN endpoint first, so each lock announces its address from its first `online`.
  const byId = new Map(locks.map(({ id, endpoint }) => [id.toLowerCase(), endpoint]));
  const lan: Promise<LanServer | null> = config.lan === undefined ? Promise.resolve(null) : startLanServer({
    port: config.lan.port,
    ...(config.lan.host === undefined ? {} : { host: config.lan.host }),
    lockFor: (lockId) => byId.get(lockId),
    log: (action, fields = {}) => logger.info(fields, action),
  });
  const lanStarted = lan.then((server) => {
    if (server === null || config.lan === undefined) return null;
    const url = lanEndpointUrl(config.lan.advertiseHost ?? config.lan.host ?? '127.0.0.1', server.port);
    for (const { endpoint } of locks) endpoint.setDirectAccessEndpoints([url]);
    return url;
  });
  lanStarted.catch((err: unknown) => logger.error({ err: err instanceof Error ? err.message : String(err) }, 'the LAN endpoint did not start'));
  void lanStarted.catch(() => null).then(() => {
    if (closing === undefined) for (const { endpoint } of locks) void endpoint.connect(false);
  });
  const matter = matterLocks.length === 0 ? Promise.resolve(null) : import('./matter/network.js').then(({ startMatterNetwork }) =>
    startMatterNetwork({ dataDir: config.dataDir, port: config.matter.port, pingSeconds: config.matter.pingSeconds, logger, locks: matterLocks }));
  matter.catch((err: unknown) => logger.error({ err: err instanceof Error ? err.message : String(err) }, 'the Matter controller did not start'));

  // A Z-Wave lock that stopped answering is found by pinging it (two pings in a row unanswered: ZwaveLock.ping).
  const pingMs = (config.zwave?.pingSeconds ?? 10) * 1000;
  const pinger = setInterval(() => {
    if (zwave === null || !zwave.connected) return;
    for (const lock of zwaveLocks.values()) void lock.ping(Math.max(pingMs, 5_000));
  }, pingMs);
  logger.info({ locks: locks.length, zwave: config.zwave?.url ?? null, matter: matterLocks.length }, 'bridge started');

  let closing: Promise<void> | undefined;
  return {
    status: () => locks.map(({ id, endpoint, bolt }) => ({ id, reachable: bolt.reachable, connected: endpoint.connected, configVersion: endpoint.configVersion })),
    matterStarted: matter.then(() => undefined),
    lanStarted,
    async unpair(lockId) {
      const network = await matter;
      return network === null ? { unpaired: false, decommissioned: false } : network.unpair(lockId);
    },
    close: () => (closing ??= (async () => {
      clearInterval(pinger);
      for (const { bolt, slots } of locks) {
        bolt.stop();
        slots.close();
      }
      await (await lan.catch(() => null))?.close();
      await Promise.all(locks.map(({ endpoint }) => endpoint.close()));
      await zwave?.close();
      await (await matter.catch(() => null))?.close();
      logger.info('bridge stopped');
    })()),
  };
}
