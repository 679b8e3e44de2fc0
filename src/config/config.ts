import { isAbsolute, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { isValidTopicPrefix } from '../mqtt/topic-names.js';
import { webhookConfig, type WebhookConfig } from './webhooks.js';

/** Configuration of one Latchkey process, read once from the environment at start-up. */
export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  dataDir: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; /** Named prepared statements (src/db/named-statements.ts); on unless false. */ preparedStatements?: boolean };
  mqtt: { kind: 'embedded'; port: number } | { kind: 'external'; url: string };
  /** PEM files of the embedded broker's TLS listener (both or neither); null = plain MQTT. */
  mqttTls: { keyFile: string; certFile: string } | null;
  /**
   * With an external broker: each lock report to one instance of the cluster through MQTT 5 shared
   * subscriptions, each reply to the instance that sent the command (MQTT_SHARED_SUBSCRIPTIONS,
   * default true; src/lock-link/shared-subscriptions.ts). Unused with the embedded broker.
   */
  mqttSharedSubscriptions: boolean;
  /** Milliseconds between keep-alive comments on event streams (GET /device/events). */
  sseHeartbeatMs: number;
  /** Event streams one user may hold open at once on one instance (429 past it). */
  eventStreamsPerUser: number;
  /** Milliseconds a client has to send a whole request, headers and body (408 and closed after). */
  httpRequestTimeoutMs: number;
  topicPrefix: string;
  redisUrl: string | null;
  smtpUrl: string | null;
  smsWebhookUrl: string | null;
  cdnUrl: string;
  /** S3-compatible object storage for uploaded logos; null stores them in DATA_DIR/cdn. */
  s3: S3Config | null;
  lockReplyTimeoutMs: number;
  certCheck: 'always' | 'new-key' | 'never';
  /** An operator-supplied CA (JSON export, see src/crypto/ca-store.ts); null = the service's own, kept in the database. */
  caFile: string | null;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Addresses of reverse proxies whose X-Forwarded-For is believed (decisions: permitted addresses). */
  trustProxy: string[];
  /** Base64 of a 32-byte key-encryption key; when null a key file in DATA_DIR is used. */
  keyEncryptionKey: string | null;
  tokens: { authTtlSeconds: number; refreshTtlSeconds: number };
  limits: RateLimitConfig;
  /** GET /metrics (issue 17): on its own listener (METRICS_PORT) and/or behind a bearer token (METRICS_TOKEN); neither: not served. */
  metrics: { port: number | null; token: string | null };
  /** Signed audit checkpoints (docs/audit-log.md): at most one per `intervalMs`; each also appended to `file`. */
  auditCheckpoint: { intervalMs: number; file: string; publicIntervalSeconds: number };
  /** The lock link in a real deployment (issue 16): reconciliation, broker checks, device certificates, auth hook. */
  lockOps: LockOpsConfig;
  /** Webhook deliveries (issue 32): where they may go, how long they are retried, when an endpoint is disabled. */
  webhooks: WebhookConfig;
  /** Milliseconds between sweeps of the alarms time raises and clears (held open, offline, refused unlocks; ALARM_SWEEP_MS); 0 = none. */
  alarmSweepMs: number;
}

export interface LockOpsConfig {
  /** Configs republished a second at most, on each broker connection and sweep (MQTT_CONFIG_REPUBLISH_PER_SECOND). */
  republishPerSecond: number;
  /** Seconds between sweeps republishing every config; 0 = none (MQTT_CONFIG_SWEEP_SECONDS). */
  sweepSeconds: number;
  /** Seconds between sweeps of the operation queue: expired operations dropped, waiting ones of online locks delivered; 0 = none (OPERATION_QUEUE_SWEEP_SECONDS). */
  queueSweepSeconds: number;
  /** Start even when an external broker accepts anonymous clients or a wrong lock password (MQTT_ALLOW_INSECURE_BROKER). */
  allowInsecureBroker: boolean;
  /** A device secret for `latchkey lock simulate` (LOCK_SECRET): off the command line, where `ps` shows it to everyone. */
  deviceSecret: string | null;
  /** PEM CA whose client certificates the embedded broker's TLS listener accepts as locks (MQTT_TLS_CLIENT_CA_FILE; Latchkey's root, `ca.pem` of --cert-out). */
  tlsClientCaFile: string | null;
  /** Shared secret of the broker authentication hook (MQTT_AUTH_HOOK_SECRET, ≥ 24 characters); null = the hook's routes do not exist. */
  authHookSecret: string | null;
}

export interface S3Config {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** With temporary credentials (STS, an instance or task role): their session token. */
  sessionToken: string | null;
  /** Where the bucket's objects are publicly readable; logo URLs start with it. */
  publicUrl: string;
}

export interface RateLimitConfig {
  /** Failed logins per account from one address in the window. */
  loginFailuresPerAccount: { points: number; durationSeconds: number };
  /** Failed logins per account from all addresses together, in the same window. */
  loginFailuresPerAccountAll: { points: number; durationSeconds: number };
  /** Reports (presence, state, events) one lock may have recorded per minute. */
  reportsPerLock: { points: number; durationSeconds: number };
  /** Verification messages a user may ask for per hour. */
  verificationPerUser: { points: number; durationSeconds: number };
  /** Password reset emails to one address asked for from all caller addresses together per hour. */
  passwordResetsPerEmailAll: { points: number; durationSeconds: number };
  /** Invitation emails (new invitees) one user may cause per day. */
  invitationsPerUser: { points: number; durationSeconds: number };
  /** Requests to authentication endpoints per IP. */
  authPerIp: { points: number; durationSeconds: number };
  /** Every request per caller (token or IP). */
  requestsPerCaller: { points: number; durationSeconds: number };
  /** Signed operations (POST /device/{id}/execute) per authenticated user, on any lock. */
  executePerUser: { points: number; durationSeconds: number };
  /** Signed operations per lock, from all its members together. */
  executePerLock: { points: number; durationSeconds: number };
}

/** A configuration value that cannot be used; start-up stops with `message`. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function topicPrefix(env: Env): string {
  const prefix = env.MQTT_TOPIC_PREFIX || 'locks';
  if (!isValidTopicPrefix(prefix)) throw new ConfigError('MQTT_TOPIC_PREFIX must be topic levels without wildcards, empty levels or a leading $');
  return prefix;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  // Digits only: Number() would also take ' 80', '0x50' and '1e3'.
  const value = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, name: string, protocols: readonly string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(', ')}), got an unparseable value`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

/** proxy-addr's names, IP addresses and CIDR ranges; anything else would crash the HTTP layer later. */
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
function proxyList(env: Env, name: string): string[] {
  const entries = (env[name] || '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of entries) {
    if (PROXY_NAMES.has(entry) || ipaddr.isValid(entry)) continue;
    try {
      ipaddr.parseCIDR(entry);
    } catch {
      throw new ConfigError(`${name} must list IP addresses, CIDR ranges or ${[...PROXY_NAMES].join('/')}, got "${entry}"`);
    }
  }
  return entries;
}

/** Base64 (standard or URL alphabet) of exactly 32 bytes, or null when unset. */
function keyEncryptionKey(env: Env, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw.trim()) || Buffer.from(raw.trim(), 'base64').length !== 32) {
    throw new ConfigError(`${name} must be the Base64 of exactly 32 bytes`);
  }
  return raw.trim();
}

function withoutTrailingSlash(value: string): string {
  return value.replace(/\/+$/, '');
}

/** S3 settings: none set means embedded storage; some but not all required ones is an error. */
function s3Config(env: Env): S3Config | null {
  const names = ['S3_ENDPOINT', 'S3_BUCKET', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_SESSION_TOKEN', 'S3_PUBLIC_URL'];
  if (names.every((name) => !env[name])) return null;
  const endpoint = url(env, 'S3_ENDPOINT', ['http:', 'https:']);
  for (const name of ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']) {
    if (!env[name]) throw new ConfigError(`${name} must be set when S3 storage is configured`);
  }
  if (!endpoint) throw new ConfigError('S3_ENDPOINT must be set when S3 storage is configured');
  const bucket = env.S3_BUCKET!;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError(`S3_BUCKET must be a valid bucket name, got "${bucket}"`);
  const publicUrl = url(env, 'S3_PUBLIC_URL', ['http:', 'https:']) ?? `${withoutTrailingSlash(endpoint)}/${bucket}`;
  return {
    endpoint: withoutTrailingSlash(endpoint),
    bucket,
    region: env.S3_REGION || 'us-east-1',
    accessKeyId: env.S3_ACCESS_KEY_ID!,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY!,
    sessionToken: env.S3_SESSION_TOKEN || null,
    publicUrl: withoutTrailingSlash(publicUrl),
  };
}

export function loadConfig(env: Env, cwd: string): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '0.0.0.0';
  const baseUrl = withoutTrailingSlash(url(env, 'BASE_URL', ['http:', 'https:']) ?? `http://localhost:${port}`);
  const dataDirRaw = env.DATA_DIR || './data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw);

  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:', 'sqlite:', 'file:']);
  let database: Config['database'];
  if (databaseUrl === null) database = { kind: 'sqlite', file: resolve(dataDir, 'latchkey.sqlite') };
  else if (databaseUrl.startsWith('postgres')) {
    // Off behind a proxy that pools by transaction and cannot keep them (PgBouncer in transaction mode before 1.21).
    database = { kind: 'postgres', url: databaseUrl, preparedStatements: oneOf(env, 'DATABASE_PREPARED_STATEMENTS', 'true', ['true', 'false']) === 'true' };
  }
  else database = { kind: 'sqlite', file: resolve(cwd, decodeURIComponent(new URL(databaseUrl).pathname)) };

  const mqttUrl = url(env, 'MQTT_URL', ['mqtt:', 'mqtts:', 'tcp:', 'tls:']);
  const mqtt: Config['mqtt'] = mqttUrl
    ? { kind: 'external', url: mqttUrl }
    : { kind: 'embedded', port: integer(env, 'MQTT_PORT', 1884, 0, 65535) };

  const kek = keyEncryptionKey(env, 'KEY_ENCRYPTION_KEY');
  const tlsKey = env.MQTT_TLS_KEY_FILE || '';
  const tlsCert = env.MQTT_TLS_CERT_FILE || '';
  if ((tlsKey === '') !== (tlsCert === '')) throw new ConfigError('MQTT_TLS_KEY_FILE and MQTT_TLS_CERT_FILE must be set together');
  const mqttTls = tlsKey === '' ? null : { keyFile: resolve(cwd, tlsKey), certFile: resolve(cwd, tlsCert) };
  if (env.MQTT_TLS_CLIENT_CA_FILE && mqttTls === null) throw new ConfigError('MQTT_TLS_CLIENT_CA_FILE needs MQTT_TLS_KEY_FILE and MQTT_TLS_CERT_FILE (device certificates come over TLS)');
  const loginFailuresWindow = integer(env, 'RATE_LOGIN_FAILURES_WINDOW_SECONDS', 15 * 60, 1, 7 * 24 * 3600);

  return {
    port,
    host,
    baseUrl,
    dataDir,
    database,
    mqtt,
    mqttTls,
    mqttSharedSubscriptions: oneOf(env, 'MQTT_SHARED_SUBSCRIPTIONS', 'true', ['true', 'false']) === 'true',
    sseHeartbeatMs: integer(env, 'SSE_HEARTBEAT_MS', 15_000, 10, 3_600_000),
    eventStreamsPerUser: integer(env, 'EVENT_STREAMS_PER_USER', 10, 1, 10_000),
    httpRequestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    topicPrefix: topicPrefix(env),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    smsWebhookUrl: url(env, 'SMS_WEBHOOK_URL', ['http:', 'https:']),
    cdnUrl: withoutTrailingSlash(url(env, 'CDN_URL', ['http:', 'https:']) ?? `${baseUrl}/cdn`),
    s3: s3Config(env),
    lockReplyTimeoutMs: integer(env, 'LOCK_REPLY_TIMEOUT_MS', 5000, 1, 600_000),
    certCheck: oneOf(env, 'CERT_CHECK', 'new-key', ['always', 'new-key', 'never'] as const),
    caFile: env.CA_FILE ? resolve(cwd, env.CA_FILE) : null,
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    trustProxy: proxyList(env, 'TRUST_PROXY'),
    keyEncryptionKey: kek,
    tokens: {
      authTtlSeconds: integer(env, 'AUTH_TOKEN_TTL_SECONDS', 7 * 24 * 3600, 60, 365 * 24 * 3600),
      refreshTtlSeconds: integer(env, 'REFRESH_TOKEN_TTL_SECONDS', 90 * 24 * 3600, 60, 5 * 365 * 24 * 3600),
    },
    limits: {
      loginFailuresPerAccount: {
        points: integer(env, 'RATE_LOGIN_FAILURES_PER_ACCOUNT', 10, 1, 1_000_000),
        durationSeconds: loginFailuresWindow,
      },
      // Guessing spread over many addresses: reaching it locks the owner out too, so it sits far
      // above what one address may try (decisions.md "Failed logins").
      loginFailuresPerAccountAll: {
        points: integer(env, 'RATE_LOGIN_FAILURES_PER_ACCOUNT_ALL', 100, 1, 1_000_000),
        durationSeconds: loginFailuresWindow,
      },
      // Verification messages (email, SMS) a user may ask for in an hour: each one costs a message.
      verificationPerUser: { points: integer(env, 'RATE_VERIFY_PER_USER', 10, 1, 1_000_000), durationSeconds: 3600 },
      // Reset emails to one address from every caller address (each caller address has
      // RATE_VERIFY_PER_USER of its own). The window is the reset token's lifetime: while it is
      // spent, the last token sent is still valid (decisions.md "Abuse limits").
      passwordResetsPerEmailAll: { points: integer(env, 'RATE_PASSWORD_RESETS_PER_EMAIL_ALL', 30, 1, 1_000_000), durationSeconds: 3600 },
      // Each new invitee is an email to an address nobody proved: an admin's day of sharing, not a mailing.
      invitationsPerUser: { points: integer(env, 'RATE_INVITES_PER_USER', 50, 1, 1_000_000), durationSeconds: 24 * 3600 },
      authPerIp: { points: integer(env, 'RATE_AUTH_PER_IP', 300, 1, 10_000_000), durationSeconds: 60 },
      requestsPerCaller: { points: integer(env, 'RATE_REQUESTS_PER_CALLER', 100_000, 1, 100_000_000), durationSeconds: 60 },
      // 10 a second for a minute is far beyond a person or a home automation, yet stops a client
      // retrying in a loop within seconds; a lock allows twice a user's, so one runaway member
      // alone cannot lock the others out of the door.
      executePerUser: { points: integer(env, 'RATE_EXECUTE_PER_USER', 600, 1, 100_000_000), durationSeconds: 60 },
      executePerLock: { points: integer(env, 'RATE_EXECUTE_PER_LOCK', 1200, 1, 100_000_000), durationSeconds: 60 },
      // An unlock, its relock and a door opening and closing are about six reports: 300 a minute
      // is a door in constant use; far more is a faulty or hostile lock filling its own trail.
      reportsPerLock: { points: integer(env, 'RATE_REPORTS_PER_LOCK', 300, 1, 1_000_000), durationSeconds: 60 },
    },
    metrics: metricsConfig(env),
    auditCheckpoint: {
      intervalMs: integer(env, 'AUDIT_CHECKPOINT_INTERVAL_MS', 1000, 0, 3_600_000),
      file: resolve(dataDir, env.AUDIT_CHECKPOINT_FILE || 'audit-checkpoints'),
      publicIntervalSeconds: integer(env, 'AUDIT_PUBLIC_CHECKPOINT_INTERVAL_S', 3600, 0, 7 * 24 * 3600),
    },
    lockOps: lockOpsConfig(env, cwd),
    webhooks: webhookConfig(env, integer),
    alarmSweepMs: integer(env, 'ALARM_SWEEP_MS', 10_000, 0, 3_600_000),
  };
}

function lockOpsConfig(env: Env, cwd: string): LockOpsConfig {
  const insecure = env.MQTT_ALLOW_INSECURE_BROKER || 'false';
  if (insecure !== 'true' && insecure !== 'false') throw new ConfigError('MQTT_ALLOW_INSECURE_BROKER must be true or false');
  const hookSecret = env.MQTT_AUTH_HOOK_SECRET || null;
  if (hookSecret !== null && hookSecret.length < 24) throw new ConfigError('MQTT_AUTH_HOOK_SECRET must be at least 24 characters');
  return {
    republishPerSecond: integer(env, 'MQTT_CONFIG_REPUBLISH_PER_SECOND', 2000, 1, 1_000_000),
    sweepSeconds: integer(env, 'MQTT_CONFIG_SWEEP_SECONDS', 3600, 0, 7 * 24 * 3600),
    queueSweepSeconds: integer(env, 'OPERATION_QUEUE_SWEEP_SECONDS', 60, 0, 24 * 3600),
    allowInsecureBroker: insecure === 'true',
    deviceSecret: env.LOCK_SECRET || null,
    tlsClientCaFile: env.MQTT_TLS_CLIENT_CA_FILE ? resolve(cwd, env.MQTT_TLS_CLIENT_CA_FILE) : null,
    authHookSecret: hookSecret,
  };
}

/** METRICS_PORT (a listener of its own, 0 = any free port) and METRICS_TOKEN (a bearer token of 16 characters or more). */
function metricsConfig(env: Env): Config['metrics'] {
  const port = env.METRICS_PORT ? integer(env, 'METRICS_PORT', 0, 0, 65535) : null;
  const token = env.METRICS_TOKEN || null;
  if (token !== null && token.length < 16) throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  return { port, token };
}
