import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { after, before } from 'node:test';
import { loadConfig, type Config } from '../../src/config/config.js';
import { SchemaCompilers } from '../../src/http/schema-compilers.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/server.js';
import type { TestClock } from './clock.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { createLegacyUser, createUser, type LegacyUser, type TestUser } from './factories.js';
import { Api } from './http.js';
import { startSmtpSink, type SmtpSink } from './smtp.js';

export const TEST_BASE_URL = 'http://latchkey.test';
/**
 * The argon2id memory (KiB) test services hash passwords at, passed in code
 * (ContextOptions.passwordHashMemoryKiB); production's is the constant PASSWORD_HASH_MEMORY_KIB of
 * src/crypto/passwords.ts.
 */
export const TEST_PASSWORD_HASH_MEMORY_KIB = 1024;

/**
 * Every service a test process starts compiles its schemas into this one (src/http/schema-compilers.ts):
 * compiling them again per service was ~0.3 s of CPU a start, a fifth of the suite's CPU.
 */
export const testSchemaCompilers = new SchemaCompilers();

/**
 * For a service a test starts itself with `startService` (a restart, another instance on the same
 * database): this process's schema compilers and the test password cost, as startTestService's
 * services have. Without them each such start compiled every schema again and hashed its login
 * decoy at production's cost (~0.2 s of CPU a start).
 */
export const TEST_SERVICE_OPTIONS = { schemaCompilers: testSchemaCompilers, passwordHashMemoryKiB: TEST_PASSWORD_HASH_MEMORY_KIB } satisfies ServiceOptions;

export interface TestService {
  api: Api;
  service: RunningService;
  config: Config;
  dataDir: string;
  database: TestDatabase;
  /** The clock the service reads its time from, when the test gave it one. */
  clock: TestClock | undefined;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  /** The service's time (ctx.now) comes from this clock instead of the system's. */
  clock?: TestClock;
  /** The service logs here (e.g. capturingLogger() of ./mqtt.ts, to look through every line). */
  logger?: Logger;
  /** Hash passwords at production's cost (PASSWORD_HASH_MEMORY_KIB) rather than TEST_PASSWORD_HASH_MEMORY_KIB. */
  productionPasswordCost?: true;
}

/**
 * The real service on a free port with a fresh database (SQLite or PostgreSQL per
 * LATCHKEY_TEST_DB; migrated, see createTestDatabase) and its own data directory. `env`
 * overrides configuration variables.
 */
export async function startTestService(env: Record<string, string> = {}, options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'latchkey-test-'));
  // Already migrated (a copy of the run's template): the service's own migration at start finds nothing to do.
  const database = await createTestDatabase(dataDir, { migrated: true });
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    BASE_URL: TEST_BASE_URL,
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    MQTT_PORT: '0',
    LOG_LEVEL: process.env.LATCHKEY_TEST_LOG_LEVEL ?? 'silent',
    ...env,
  }, process.cwd());
  const undeclared = declaredStatusCheck();
  // argon2id at 1 MiB (OWASP's 19 MiB took 44 ms of CPU a hash, ~17 % of the account tests');
  // test/accounts/secrets-at-rest.test.ts starts its service at production's cost and holds it to
  // m=19456,t=2,p=1 (docs/decisions.md).
  const passwordCost = options.productionPasswordCost ? {} : { passwordHashMemoryKiB: TEST_PASSWORD_HASH_MEMORY_KIB };
  const service = await startService(config, { ...(options.clock ? { now: options.clock.now } : {}), ...(options.logger ? { logger: options.logger } : {}), ...passwordCost, onUndeclaredStatus: undeclared.record, schemaCompilers: testSchemaCompilers });
  let closed = false;
  return {
    api: new Api(service.url),
    service,
    config,
    dataDir,
    database,
    clock: options.clock,
    async close() {
      if (closed) return;
      closed = true;
      await service.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
      undeclared.failIfAny();
    },
  };
}

/**
 * The declared-status check of src/http/declared-statuses.ts, on in every test service (issue 25
 * point 4, as logto's guard): a reply whose status its route does not declare becomes a 500
 * `undeclared_status`, is written to stderr at once, and fails the test when its service closes
 * (`useService`'s `after`, or the test's own `close()`), even when the test never looked at the status.
 */
function declaredStatusCheck(): { record: (what: string) => void; failIfAny: () => void } {
  const seen: string[] = [];
  return {
    record: (what) => {
      seen.push(what);
      console.error(`undeclared status: ${what}`);
    },
    failIfAny: () => {
      if (seen.length > 0) throw new Error(`replies of undeclared statuses (declare them in the route's response schema):\n${seen.join('\n')}`);
    },
  };
}

/** A test file's service (and optionally one signed-up user and an SMTP sink), filled in by `before`. */
export interface ServiceFixture extends TestService {
  /** The user created in `before` (only with `withUser: true`, registered with v3). */
  readonly user: TestUser;
  /** The user created in `before` (only with `withUser: 'legacy'`, registered with v1). */
  readonly legacyUser: LegacyUser;
  /** The SMTP server the service sends its email to (only with `withMail`). */
  readonly sink: SmtpSink;
}

/**
 * Registers the usual `before` (start the service, maybe an SMTP sink it mails to, maybe sign a
 * user up) and `after` (close) in the calling `describe`, and returns an object whose fields are
 * available inside the tests.
 */
export function useService(options: { env?: Record<string, string>; withUser?: boolean | 'legacy'; withMail?: boolean; clock?: TestClock } = {}): ServiceFixture {
  let running: TestService | undefined;
  let signedUp: TestUser | undefined;
  let signedUpLegacy: LegacyUser | undefined;
  let sink: SmtpSink | undefined;
  const started = (): TestService => {
    if (!running) throw new Error('useService: the service is only available once `before` has run');
    return running;
  };
  before(async () => {
    if (options.withMail) sink = await startSmtpSink();
    running = await startTestService({ ...options.env, ...(sink ? { SMTP_URL: sink.url } : {}) }, options.clock ? { clock: options.clock } : {});
    if (options.withUser === true) signedUp = await createUser(running.api);
    if (options.withUser === 'legacy') signedUpLegacy = await createLegacyUser(running.api);
  });
  after(async () => {
    await running?.close();
    await sink?.close();
  });
  return {
    get api() { return started().api; },
    get service() { return started().service; },
    get config() { return started().config; },
    get dataDir() { return started().dataDir; },
    get database() { return started().database; },
    get clock() { return started().clock; },
    close: () => started().close(),
    get user() {
      if (!signedUp) throw new Error('useService: pass withUser: true to get a user');
      return signedUp;
    },
    get legacyUser() {
      if (!signedUpLegacy) throw new Error("useService: pass withUser: 'legacy' to get a legacy user");
      return signedUpLegacy;
    },
    get sink() {
      if (!sink) throw new Error('useService: pass withMail to get an SMTP sink');
      return sink;
    },
  };
}

/** Another instance of `t`'s service: the same database, data directory and Redis, its own port (and `overrides` of its configuration). */
export async function startInstanceBeside(t: TestService, overrides: Partial<Config> = {}, options: Pick<ServiceOptions, 'holdLockReport'> = {}): Promise<{ api: Api; service: RunningService; close(): Promise<void> }> {
  const undeclared = declaredStatusCheck();
  const service = await startService({ ...t.config, ...overrides, port: 0 }, { ...options, ...(t.clock ? { now: t.clock.now } : {}), passwordHashMemoryKiB: t.service.ctx.passwordHashMemoryKiB, onUndeclaredStatus: undeclared.record, schemaCompilers: testSchemaCompilers });
  return {
    api: new Api(service.url),
    service,
    close: async () => {
      await service.close();
      undeclared.failIfAny();
    },
  };
}

/** Redis on this machine (CI starts it when down), for tests of several instances. */
export const TEST_REDIS_URL = process.env.LATCHKEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
