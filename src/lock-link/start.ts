import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AppContext } from '../context.js';
import { startEmbeddedBroker, type EmbeddedBroker } from '../link/broker.js';
import { createLockLink, type LockLink, type LockLinkHandlers, type LockLinkOptions } from '../link/lock-link.js';
import { authenticateLockSecret } from '../locks/provision.js';
import { republishAllConfigs, syncLockConfigs } from './config-sync.js';
import { KeyedQueue, QueueFullError } from './keyed-queue.js';
import { ReportThrottle } from './report-throttle.js';
import { recordDoorEvent, recordPresence, recordState } from './reports.js';

/**
 * The lock link of a running service: the embedded broker (unless MQTT_URL names an external
 * one), the service's MQTT client, the handlers that turn lock reports into database changes and
 * audit entries, and the config sync. Everything started here is registered in `ctx.closers`
 * so that shutdown runs: stop config sync → close the link → finish queued reports → close the broker.
 */

type LinkContext = Omit<AppContext, 'link' | 'broker'>;

export interface StartedLink {
  link: LockLink;
  /** The embedded broker, or null with an external one. */
  broker: EmbeddedBroker | null;
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

/** Nothing survives a restart of the embedded broker: locks the database still shows connected are not. */
async function markAllDisconnected(ctx: AppContext): Promise<void> {
  for (;;) {
    const page = await ctx.db.kysely.selectFrom('locks').select('id').where('connected', '=', 1).limit(200).execute();
    if (page.length === 0) return;
    for (const { id } of page) await recordPresence(ctx, id, false);
  }
}

async function startBroker(ctx: LinkContext, port: number, service: { username: string; password: string }): Promise<EmbeddedBroker> {
  const { mqttTls } = ctx.config;
  const tls = mqttTls ? { key: await readFile(mqttTls.keyFile), cert: await readFile(mqttTls.certFile) } : undefined;
  return startEmbeddedBroker({
    port,
    host: ctx.config.host,
    ...(tls ? { tls } : {}),
    serviceCredentials: service,
    authenticateDevice: (lockId, secret) => authenticateLockSecret(ctx, lockId, secret),
    topicPrefix: ctx.config.topicPrefix,
    logger: ctx.logger,
  });
}

/**
 * Starts the link and completes `ctx` with it. `ctx.link` is read by the report handlers only
 * after this returns, so the half-built context is never used.
 */
export async function startLink(partial: LinkContext): Promise<StartedLink> {
  const ctx = partial as AppContext;
  const { config, closers } = ctx;
  const queue = new KeyedQueue();
  let broker: EmbeddedBroker | null = null;
  let target: LockLinkOptions['broker'];
  let credentials: { username?: string; password?: string } = {};
  if (config.mqtt.kind === 'embedded') {
    await markAllDisconnected(ctx);
    // Random per process: only this process's own client may use every topic.
    const service = { username: `latchkey-service-${randomUUID()}`, password: randomBytes(32).toString('base64url') };
    const embedded = await startBroker(ctx, config.mqtt.port, service);
    broker = embedded;
    closers.push(() => embedded.close());
    // The service's client lives in the broker's process: an in-memory connection spares every
    // command and reply a loopback socket (and TLS) in each direction (docs/decisions.md).
    target = () => embedded.connectInProcess();
    credentials = service;
  } else {
    target = config.mqtt.url;
  }
  const throttle = new ReportThrottle({
    points: config.limits.reportsPerLock.points,
    windowMs: config.limits.reportsPerLock.durationSeconds * 1000,
    onThrottled: (lockId) => ctx.logger.warn({ lockId }, 'lock reports held back: the lock reports faster than its limit (RATE_REPORTS_PER_LOCK)'),
  });
  closers.push(async () => throttle.close());
  closers.push(() => queue.drain());
  const link = await createLockLink({
    broker: target,
    ...credentials,
    topicPrefix: config.topicPrefix,
    replyTimeoutMs: config.lockReplyTimeoutMs,
    logger: ctx.logger,
    handlers: reportHandlers(ctx, queue, throttle),
  });
  closers.push(() => link.close());
  ctx.link = link;
  ctx.broker = broker;

  let stopped = false;
  const unsubscribe = syncLockConfigs(ctx);
  let republishing: Promise<unknown> = Promise.resolve();
  if (broker) {
    // In the background: start-up need not wait for every lock's config.
    republishing = republishAllConfigs(ctx, () => stopped).catch((err: unknown) => ctx.logger.error({ err }, 'republishing lock configs failed'));
  }
  closers.push(async () => {
    stopped = true;
    unsubscribe();
    await republishing;
  });
  return { link, broker };
}
