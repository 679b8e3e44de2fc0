import { join } from 'node:path';
import type { Logger } from 'pino';
import type { BridgeConfig } from '../config/bridge.js';
import { LockEndpoint } from '../lock-edge/lock-endpoint.js';
import { ZwaveServerClient } from './zwave/server-client.js';
import { ZWAVE_CAPABILITIES, ZwaveLock } from './zwave/zwave-lock.js';

/**
 * `latchkey bridge`: each real lock it drives is a Latchkey lock of its own (its id, its secret,
 * its MQTT session with its will) that speaks the device protocol to the service, so the service
 * needs no special case; behind it, the real lock through its stack. Every command is checked
 * here before the lock is touched (src/lock-edge/: chain, claims, enrolment and windows, replay
 * memory kept in the data directory, deadline).
 *
 * Nothing has to be up when it starts: the broker and Z-Wave JS Server are connected to whenever
 * they can be, and again after they go away; a lock that cannot be reached is offline to the
 * service until it can.
 */

export interface RunningBridge {
  /** The lock ids and whether each is online to the service now. */
  status(): Array<{ id: string; reachable: boolean; connected: boolean; configVersion: number | null }>;
  close(): Promise<void>;
}

export interface BridgeOptions {
  config: BridgeConfig;
  logger: Logger;
  /** Unix seconds. Default: the system clock. */
  now?: () => number;
}

export function runBridge({ config, logger, now = () => Date.now() / 1000 }: BridgeOptions): RunningBridge {
  const locks: Array<{ id: string; endpoint: LockEndpoint; zwave: ZwaveLock }> = [];
  const byNode = new Map<number, ZwaveLock>();
  const zwave = config.zwave === null ? null : new ZwaveServerClient(config.zwave.url, {
    onState(nodes) {
      for (const lock of byNode.values()) lock.takeNodeState(nodes.find((node) => node.nodeId === lock.nodeId));
    },
    onEvent(event) {
      if (event.source === 'node' && event.nodeId !== undefined) byNode.get(event.nodeId)?.takeEvent(event);
    },
    onDisconnected() {
      for (const lock of byNode.values()) lock.serverLost();
    },
  }, logger);

  for (const lockConfig of config.locks) {
    if (zwave === null) continue;
    const log = (action: string, fields: Record<string, unknown> = {}) => logger.info({ lockId: lockConfig.id, ...fields }, action);
    const endpoint = new LockEndpoint({
      id: lockConfig.id,
      secret: lockConfig.secret,
      mqttUrl: config.mqttUrl,
      topicPrefix: config.topicPrefix,
      device: { kind: 'zwave', capabilities: ZWAVE_CAPABILITIES },
      replayFile: join(config.dataDir, 'replays', `${lockConfig.id}.jsonl`),
      defaultCommandMs: config.lockReplyTimeoutMs,
      now,
      log,
      ...(config.trustedRoot === null ? {} : { trustedRoot: config.trustedRoot }),
    });
    const lock = new ZwaveLock(lockConfig.zwave.nodeId, zwave, now, log);
    lock.listen({
      changed: () => endpoint.publishState(),
      doorChanged: (open) => {
        endpoint.publishDoorEvent(open);
        endpoint.publishState();
      },
      reachable: (reachable) => endpoint.setAvailable(reachable),
    });
    // Offline to the service until the lock is seen through Z-Wave JS.
    endpoint.setAvailable(false);
    endpoint.attach(lock);
    byNode.set(lock.nodeId, lock);
    locks.push({ id: lockConfig.id, endpoint, zwave: lock });
  }

  zwave?.start();
  for (const { endpoint } of locks) void endpoint.connect(false);
  // A lock that stopped answering is found by pinging it; Z-Wave JS marks it dead then, too.
  const pingMs = (config.zwave?.pingSeconds ?? 10) * 1000;
  const pinging = new Set<ZwaveLock>();
  const pinger = setInterval(() => {
    if (zwave === null || !zwave.connected) return;
    for (const lock of byNode.values()) {
      if (pinging.has(lock)) continue;
      pinging.add(lock);
      zwave.request('node.ping', { nodeId: lock.nodeId }, Math.max(pingMs, 5_000))
        .then((result) => lock.pinged(result.responded === true), () => lock.pinged(false))
        .finally(() => pinging.delete(lock));
    }
  }, pingMs);
  logger.info({ locks: locks.length, zwave: config.zwave?.url ?? null }, 'bridge started');

  let closing: Promise<void> | undefined;
  return {
    status: () => locks.map(({ id, endpoint, zwave: lock }) => ({ id, reachable: lock.reachable, connected: endpoint.connected, configVersion: endpoint.configVersion })),
    close: () => (closing ??= (async () => {
      clearInterval(pinger);
      for (const { zwave: lock } of locks) lock.stop();
      await Promise.all(locks.map(({ endpoint }) => endpoint.close()));
      await zwave?.close();
      logger.info('bridge stopped');
    })()),
  };
}
