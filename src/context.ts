import { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import { createInProcessBus, createRedisBus, type EventBus } from './bus/event-bus.js';
import { applicationsFollowAccountDeletions } from './applications/app-users.js';
import { createApplicationsPlatform, type ApplicationsPlatform } from './applications/platform.js';
import { brandingFor as applicationBranding } from './applications/branding.js';
import type { Config } from './config/config.js';
import { warnAboutLoosePrivateFiles } from './config/private-files.js';
import { startupStep } from './config/startup-step.js';
import { PASSWORD_HASH_MEMORY_KIB } from './crypto/passwords.js';
import { loadKeyEncryptionKey, createSecretBox, type SecretBox } from './crypto/secret-box.js';
import { ServiceKeys } from './crypto/service-keys.js';
import { ServiceTokens } from './crypto/service-tokens.js';
import { AccountEvents } from './accounts/events.js';
import { LiveSessions } from './accounts/live-sessions.js';
import { auditCheckpointLag } from './audit/checkpoint-lag.js';
import { AuditListeners } from './audit/listeners.js';
import { CHECKPOINT_TURN, CHECKPOINT_TURN_SECONDS, CheckpointSigner } from './audit/checkpoint-signer.js';
import { startSessionRevocation } from './accounts/session-revocation.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { ClusterTurn, instanceName } from './db/turns.js';
import { createRateLimits, type RateLimits } from './limits/service-limits.js';
import type { LockLink } from './lock-link/client.js';
import { openLockLink } from './lock-link/open.js';
import { lockConfigsFollowAccountKeys } from './locks/config-changes.js';
import { LockWrites } from './locks/lock-writes.js';
import type { EmbeddedBroker } from './mqtt/broker.js';
import type { Branding } from './messaging/branding.js';
import { loadCertificateAuthority, type Pki } from './certificates/ca.js';
import { createMailer, type Mailer } from './messaging/mailer.js';
import { LiveEvents } from './events/live-events.js';
import { createMetrics, type Metrics } from './metrics/registry.js';
import { createTextSender, type TextSender } from './messaging/sms.js';
import { sharingFollowsAccounts } from './sharing/account-events.js';
import { webhooksFollowAudit } from './webhooks/outbox.js';

/** Everything a request or command needs, built once by the composition root and passed down. */
export interface AppContext {
  config: Config;
  logger: Logger;
  db: Database;
  box: SecretBox;
  keys: ServiceKeys;
  tokens: ServiceTokens;
  /** Users of live sessions held in memory (bypassed while the bus is disconnected); null: none held. */
  liveSessions: LiveSessions | null;
  /** Our CA (decisions §3): issues ephemeral-key certificates; its root verifies `x5c` chains. */
  pki: Pki;
  mailer: Mailer;
  texts: TextSender;
  limits: RateLimits;
  redis: Redis | null;
  /** Events between features and instances (in-process, or Redis when configured). */
  bus: EventBus;
  /** What happens to accounts, told to other features inside the transaction that does it (src/accounts/events.ts). */
  accountEvents: AccountEvents;
  /** Told of each audit entry inside its transaction (src/audit/listeners.ts): the webhooks' outbox. */
  auditListeners: AuditListeners;
  /** PostgreSQL: the unlock path's audited writes, in batches (src/locks/lock-writes.ts); null on SQLite (its group commit). */
  lockWrites: LockWrites | null;
  /** The look of messages to a user of `namespace` ('direct' or an application id). */
  brandingFor: (namespace: string) => Promise<Branding>;
  /** Unix seconds with fraction; injectable for tests. */
  now: () => number;
  /** The service's side of the lock link (commands, configs, presence); it listens once src/subscribers.ts starts it. */
  link: LockLink;
  /** The embedded MQTT broker (its actual `port`), or null when MQTT_URL names an external one. */
  broker: EmbeddedBroker | null;
  /** Prometheus metrics of this instance (GET /metrics, src/metrics). */
  metrics: Metrics;
  /** Signs the audit log's tree head after audit commits, when this instance holds the cluster's turn (src/audit/checkpoint-signer.ts). */
  checkpoints: CheckpointSigner;
  /** This process's name as the holder of the cluster's turns (src/db/turns.ts). */
  instanceName: string;
  /**
   * KiB of memory of argon2id for new password hashes and the login's decoy: PASSWORD_HASH_MEMORY_KIB
   * (src/crypto/passwords.ts) always, except in tests (ContextOptions.passwordHashMemoryKiB).
   */
  passwordHashMemoryKiB: number;
  /** Resources to release on shutdown, closed in reverse order of creation. */
  closers: Array<() => Promise<void> | void>;
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    redact: { paths: ['req.headers.authorization', 'password', 'privateKey', '*.password', '*.privateKey', 'secret', '*.secret'], censor: '[redacted]' },
  });
}

export interface ContextOptions {
  logger?: Logger;
  now?: () => number;
  migrate?: boolean;
  /**
   * Tests only: a cheaper argon2id memory (KiB, at least 1,024) for new hashes and the decoy.
   * Not configuration: `latchkey serve` never sets it, production hashes at PASSWORD_HASH_MEMORY_KIB.
   */
  passwordHashMemoryKiB?: number;
}

export async function createContext(config: Config, options: ContextOptions = {}): Promise<AppContext> {
  const logger = options.logger ?? createLogger(config);
  const now = options.now ?? (() => Date.now() / 1000);
  const passwordHashMemoryKiB = options.passwordHashMemoryKiB ?? PASSWORD_HASH_MEMORY_KIB;
  if (!Number.isInteger(passwordHashMemoryKiB) || passwordHashMemoryKiB < 1024) throw new Error(`passwordHashMemoryKiB must be an integer of at least 1024, not ${passwordHashMemoryKiB}`);
  const closers: AppContext['closers'] = [];
  try {
    const databaseSetting = config.database.kind === 'postgres' ? 'DATABASE_URL' : 'DATABASE_URL / DATA_DIR';
    const db = await startupStep(databaseSetting, 'cannot open the database', () => openDatabase(config.database));
    closers.push(() => db.close());
    warnAboutLoosePrivateFiles(config, logger);
    if (options.migrate !== false) await startupStep(databaseSetting, 'cannot migrate the database', () => migrateToLatest(db));

    const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 }) : null;
    if (redis) {
      closers.push(async () => void (redis.status === 'ready' ? await redis.quit() : redis.disconnect()));
      // ioredis reconnects by itself; unheard, its errors would be printed raw to stderr.
      redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
      await startupStep('REDIS_URL', 'cannot reach Redis', () => redis.ping());
    }

    const bus = config.redisUrl ? createRedisBus(config.redisUrl, logger) : createInProcessBus();
    closers.push(() => bus.close());

    const box = await startupStep('KEY_ENCRYPTION_KEY', 'cannot read the key-encryption key', () => createSecretBox(loadKeyEncryptionKey(config.keyEncryptionKey, config.dataDir)));
    const keys = new ServiceKeys(db.kysely, box, now);
    await startupStep('KEY_ENCRYPTION_KEY', 'cannot open the stored keys (is it the key they were sealed with?)', () => keys.load());
    const pki = await startupStep(config.caFile ? 'CA_FILE' : 'KEY_ENCRYPTION_KEY', 'cannot load the certificate authority', () => loadCertificateAuthority({ db, box, logger, now, config }));
    const tokens = new ServiceTokens({ keys, baseUrl: config.baseUrl, authTtlSeconds: config.tokens.authTtlSeconds, refreshTtlSeconds: config.tokens.refreshTtlSeconds, now });

    const mailer = createMailer({ smtpUrl: config.smtpUrl, dataDir: config.dataDir, logger });
    closers.push(() => mailer.close());
    const texts = createTextSender({ webhookUrl: config.smsWebhookUrl, dataDir: config.dataDir, logger });

    const limits = createRateLimits(config.limits, { redis, now, logger });

    const brandingFor = (namespace: string) => applicationBranding(db.kysely, namespace);
    // Several instances: another's changes reach this cache over the bus (src/accounts/session-revocation.ts).
    const liveSessions = new LiveSessions();
    // Before any route subscribes to the same channel: whatever rechecks a session on a change
    // (an open event stream) must find the cache already without it.
    closers.push(startSessionRevocation({ bus, liveSessions }));
    const { link, broker } = await startupStep(config.mqtt.kind === 'external' ? 'MQTT_URL' : 'MQTT_PORT / HOST', 'cannot start the lock link', () => openLockLink({ config, logger, db, now, closers }));
    const metrics = createMetrics();
    metrics.attach({
      locksOnline: () => link.brokerStatus().locksOnline,
      brokerReconnects: () => link.brokerStatus().reconnects,
      busReconnects: () => bus.status().reconnects,
      auditCheckpointLag: () => auditCheckpointLag(db.kysely, now()),
    });
    const accountEvents = new AccountEvents();
    const auditListeners = new AuditListeners();
    const name = instanceName();
    const checkpoints = new CheckpointSigner({ db, box, config, logger, now, bus }, new ClusterTurn(db.kysely, CHECKPOINT_TURN, name, CHECKPOINT_TURN_SECONDS, now, bus));
    // Closed before what it needs (the database): it signs what is left on shutdown.
    closers.push(() => checkpoints.close());
    const lockWrites = db.dialect === 'postgres' ? new LockWrites(db) : null;
    const ctx: AppContext = { config, logger, db, box, keys, tokens, liveSessions, pki, mailer, texts, limits, redis, bus, accountEvents, auditListeners, lockWrites, brandingFor, now, link, broker, metrics, checkpoints, instanceName: name, passwordHashMemoryKiB, closers };
    // In this order inside an account's transaction: a deleted user leaves their locks before their application's tombstone is written.
    sharingFollowsAccounts(ctx);
    lockConfigsFollowAccountKeys(ctx);
    applicationsFollowAccountDeletions(ctx);
    webhooksFollowAudit(ctx);
    return ctx;
  } catch (err) {
    await closeAll(closers);
    throw err;
  }
}

/**
 * What only the HTTP side holds, built here too, once the context exists (each part needs it),
 * and handed to registerRoutes (src/routes.ts): nothing is built lazily by a route plugin.
 */
export interface HttpParts {
  /** The applications feature's long-lived parts: third-party tokens, CORS origins, logo storage. */
  applications: ApplicationsPlatform;
  /** GET /device/events' audit feed and open streams. */
  liveEvents: LiveEvents;
}

export function createHttpParts(ctx: AppContext): HttpParts {
  const applications = createApplicationsPlatform(ctx);
  // After the platform: an application's change empties its caches before open streams recheck their tokens (src/events/open-streams.ts).
  const liveEvents = new LiveEvents({ db: ctx.db.kysely, bus: ctx.bus, logger: ctx.logger });
  ctx.closers.push(() => liveEvents.close());
  return { applications, liveEvents };
}

async function closeAll(closers: AppContext['closers']): Promise<void> {
  for (const close of [...closers].reverse()) {
    try {
      await close();
    } catch {
      // Shutting down: a resource that fails to close must not keep the others open.
    }
  }
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await closeAll(ctx.closers);
}
