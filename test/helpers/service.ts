import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config/config.js';
import { startService, type RunningService } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { Api } from './http.js';

export const TEST_BASE_URL = 'http://latchkey.test';

export interface TestService {
  api: Api;
  service: RunningService;
  config: Config;
  dataDir: string;
  database: TestDatabase;
  close(): Promise<void>;
}

/**
 * The real service on a free port with a fresh database (SQLite or PostgreSQL per
 * LATCHKEY_TEST_DB) and its own data directory. `env` overrides configuration variables.
 */
export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'latchkey-test-'));
  const database = await createTestDatabase(dataDir);
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    BASE_URL: TEST_BASE_URL,
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    MQTT_PORT: '0',
    LOG_LEVEL: process.env.LATCHKEY_TEST_LOG_LEVEL ?? 'silent',
    ...env,
  });
  const service = await startService(config);
  let closed = false;
  return {
    api: new Api(service.url),
    service,
    config,
    dataDir,
    database,
    async close() {
      if (closed) return;
      closed = true;
      await service.close();
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
