import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { AppContext } from '../context.js';
import type { Database } from '../db/database.js';
import { authenticateLockSecret } from '../locks/provision.js';
import type { EmbeddedBroker } from '../mqtt/broker.js';
import type { MqttTarget } from '../mqtt/connection.js';
import { startLockBroker } from './broker.js';
import { connectLockLink, type LockLink, type LockLinkHandlers } from './client.js';
import { republishAllConfigs, syncLockConfigs } from './config-sync.js';
import { KeyedQueue, QueueFullError } from './keyed-queue.js';
import { ReportThrottle } from './report-throttle.js';
import { recordAllDisconnected, recordDoorEvent, recordPresence, recordState } from './reports.js';

/**
 * The lock link of a running service, in two steps:
 *
 * - `openLockLink` (the composition root): the embedded broker, unless MQTT_URL names an external
 *   one, and the service's MQTT client, connected but not yet listening;
 * - `startLockLinkSubscribers` (beside the routes, once the context is whole): the handlers that
 *   turn lock reports into database changes and audit entries, and the config sync.
 *
 * Shutdown runs: stop config sync → close the link → finish queued reports → close the broker.
 */

export interface OpenedLockLink {
  link: LockLink;
  /** The embedded broker, or null with an external one. */
  broker: EmbeddedBroker | null;
}

interface LinkInfrastructure {
  config: Config;
  logger: Logger;
  db: Database;
  /** Where the broker and the link register their close. */
  closers: Array<() => Promise<void> | void>;
}

async function startBroker(infra: LinkInfrastructure, port: number, service: { username: string; password: string }): Promise<EmbeddedBroker> {
  const { config } = infra;
  const tls = config.mqttTls ? { key: await readFile(config.mqttTls.keyFile), cert: await readFile(config.mqttTls.certFile) } : undefined;
  return startLockBroker({
    port,
    host: config.host,
    ...(tls ? { tls } : {}),
    serviceCredentials: service,
    authenticateDevice: (lockId, secret) => authenticateLockSecret(infra, lockId, secret),
    topicPrefix: config.topicPrefix,
    logger: infra.logger,
  });
}

/** Starts the embedded broker (if any) and connects the service's client to the broker. */
export async function openLockLink(infra: LinkInfrastructure): Promise<OpenedLockLink> {
  const { config, closers } = infra;
  let broker: EmbeddedBroker | null = null;
  let target: MqttTarget;
  let credentials: { username?: string; password?: string } = {};
  if (config.mqtt.kind === 'embedded') {
    // Random per process: only this process's own client may use every topic.
    const service = { username: `latchkey-service-${randomUUID()}`, password: randomBytes(32).toString('base64url') };
    const embedded = await startBroker(infra, config.mqtt.port, service);
    broker = embedded;
    closers.push(() => embedded.close());
    // The service's client lives in the broker's process: an in-memory connection spares every
    // command and reply a loopback socket (and TLS) in each direction (docs/decisions.md).
    target = () => embedded.connectInProcess();
    credentials = service;
  } else {
    target = config.mqtt.url;
  }
  const link = await connectLockLink({ broker: target, ...credentials, topicPrefix: config.topicPrefix, replyTimeoutMs: config.lockReplyTimeoutMs, logger: infra.logger });
  closers.push(() => link.close());
  return { link, broker };
}

function reportHandlers(ctx: AppContext, queue: KeyedQueue, throttle: ReportThrottle): LockLinkHandlers {
  const record = (lockId: string, what: string, task: () => Promise<unknown>) => (): void => {
    queue.run(lockId, task).catch((err: unknown) => {
      if (err instanceof QueueFullError) ctx.logger.warn({ lockId }, `lock ${what} dropped: the lock reports faster than they can be recorded`);
      else ctx.logger.error({ err, lockId }, `recording lock ${what} failed`);
    });
  };
  return {
    onPresence: (lockId, online) => throttle.latest(lockId, 'presence', record(lockId, 'presence', () => recordPresence(ctx, lockId, online))),
    onState: (lockId, state) => throttle.latest(lockId, 'state', record(lockId, 'state', () => recordState(ctx, lockId, state))),
    onEvent: (lockId, event) => throttle.event(lockId, record(lockId, 'event', () => recordDoorEvent(ctx, lockId, event))),
  };
}

/**
 * Makes the link listen: reports are recorded and configs follow the database. Resolves with
 * the function that stops it all (before the context closes).
 */
export async function startLockLinkSubscribers(ctx: AppContext): Promise<() => Promise<void>> {
  const { config, link, broker } = ctx;
  // Nothing survives a restart of the embedded broker: locks the database still shows connected
  // are not (those connected since will be heard again from their retained `online`).
  if (broker) await recordAllDisconnected(ctx);
  const queue = new KeyedQueue();
  const throttle = new ReportThrottle({
    points: config.limits.reportsPerLock.points,
    windowMs: config.limits.reportsPerLock.durationSeconds * 1000,
    onThrottled: (lockId) => ctx.logger.warn({ lockId }, 'lock reports held back: the lock reports faster than its limit (RATE_REPORTS_PER_LOCK)'),
  });
  try {
    await link.listen(reportHandlers(ctx, queue, throttle));
  } catch (err) {
    throttle.close();
    throw err;
  }

  let stopped = false;
  const unsubscribe = syncLockConfigs(ctx);
  let republishing: Promise<unknown> = Promise.resolve();
  if (broker) {
    // In the background: start-up need not wait for every lock's config.
    republishing = republishAllConfigs(ctx, () => stopped).catch((err: unknown) => ctx.logger.error({ err }, 'republishing lock configs failed'));
  }
  return async () => {
    stopped = true;
    unsubscribe();
    await republishing;
    await link.close();
    await queue.drain();
    throttle.close();
  };
}
