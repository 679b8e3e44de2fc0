import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import type { Config } from '../../src/config/config.js';

/** Which engine this test run uses: LATCHKEY_TEST_DB=sqlite (default) or postgres. */
export const TEST_DB = (process.env.LATCHKEY_TEST_DB ?? 'sqlite') as 'sqlite' | 'postgres';
const PG_ADMIN_URL = process.env.LATCHKEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  config: Config['database'];
  /** DATABASE_URL for a child process using the same database. */
  url: string;
  drop(): Promise<void>;
}

/**
 * The run's migrated databases (test/helpers/template-databases.ts; scripts/test.mjs makes them
 * once per run and names them here): a SQLite file to copy, a PostgreSQL database to create from.
 * Unset (a test file run on its own), a migrated database is migrated from empty.
 */
const SQLITE_TEMPLATE = process.env.LATCHKEY_TEST_SQLITE_TEMPLATE || null;
const PG_TEMPLATE = process.env.LATCHKEY_TEST_PG_TEMPLATE || null;
if (PG_TEMPLATE !== null && !/^[a-z0-9_]+$/.test(PG_TEMPLATE)) throw new Error(`LATCHKEY_TEST_PG_TEMPLATE is not a database name: ${PG_TEMPLATE}`);

/** Whether `createTestDatabase(…, { migrated: true })` gives an already migrated database (a copy of the run's template). */
export const TEMPLATE_MIGRATED = TEST_DB === 'sqlite' ? SQLITE_TEMPLATE !== null : PG_TEMPLATE !== null;

/**
 * A fresh database for one test: a temp SQLite file, or a throwaway PostgreSQL database. Empty,
 * or with `migrated` a copy of the run's migrated template when there is one (TEMPLATE_MIGRATED;
 * otherwise empty too, and whoever opens it migrates it, as the service does at start).
 */
export async function createTestDatabase(dir?: string, options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  if (TEST_DB === 'sqlite') {
    const own = dir ? null : await mkdtemp(join(tmpdir(), 'latchkey-db-'));
    const file = join(dir ?? own!, 'test.sqlite');
    if (options.migrated && SQLITE_TEMPLATE !== null) {
      await copyFile(SQLITE_TEMPLATE, file);
      await chmod(file, 0o600); // as openDatabase creates it
    }
    return { config: { kind: 'sqlite', file }, url: `file:${file}`, drop: async () => void (own && (await rm(own, { recursive: true, force: true }))) };
  }
  const name = `latchkey_test_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(options.migrated && PG_TEMPLATE !== null ? `CREATE DATABASE ${name} TEMPLATE ${PG_TEMPLATE}` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    config: { kind: 'postgres', url: url.toString() },
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Registers `before`/`after` in the calling `describe`: a fresh database, opened and migrated (a
 * copy of the run's template, or migrated here), then closed and dropped. The returned getter is
 * usable inside the tests.
 */
export function useMigratedDatabase(): () => Database {
  let testDb: TestDatabase | undefined;
  let db: Database | undefined;
  before(async () => {
    testDb = await createTestDatabase(undefined, { migrated: true });
    db = openDatabase(testDb.config);
    if (!TEMPLATE_MIGRATED) await migrateToLatest(db);
  });
  after(async () => {
    await db?.close();
    await testDb?.drop();
  });
  return () => {
    if (!db) throw new Error('useMigratedDatabase: the database is only available once `before` has run');
    return db;
  };
}
