import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type QueryResult } from 'kysely';
import pg from 'pg';
import type { Config } from '../config/config.js';
import { CommitGroup } from './group-commit.js';
import { NamingClient } from './named-statements.js';
import type { DatabaseSchema } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

export const IN_TRANSACTION = Symbol('in transaction');

/** The service's database: a Kysely instance plus what callers need to know about its engine. */
export interface Database {
  readonly kysely: Kysely<DatabaseSchema>;
  readonly dialect: DialectName;
  /**
   * SQLite only: runs a compiled single-row read synchronously on the connection, skipping the
   * driver's async queue (the hot authentication read; measured in docs/decisions.md). Answers
   * IN_TRANSACTION instead while a transaction is open on the connection, since the read would
   * see its uncommitted changes: the caller then queues behind it like any query.
   */
  readonly readRowNow?: <T>(sql: string, parameters: readonly unknown[]) => T | undefined | typeof IN_TRANSACTION;
  /**
   * SQLite only: runs a compiled statement synchronously on the connection and answers what
   * Kysely's driver would. Only for the holder of the connection: the transactions of
   * transaction.ts run their prepared statements through it (`runDirectly`).
   */
  readonly runNow?: (sql: string, parameters: readonly unknown[]) => QueryResult<unknown>;
  /** SQLite only: the units of work sharing a commit (group-commit.ts), one per database. */
  readonly commitGroup?: CommitGroup;
  close(): Promise<void>;
}

// int8 (COUNT, bigserial) arrives as a string by default; our values fit in a double.
pg.types.setTypeParser(20, (value) => Number(value));

export function openDatabase(config: Config['database']): Database {
  if (config.kind === 'postgres') {
    // Repeated statements prepared once per connection (named-statements.ts), unless configured off.
    const pool = new pg.Pool({ connectionString: config.url, max: 10, ...(config.preparedStatements === false ? {} : { Client: NamingClient }) });
    // An idle client dropped by the server (restart, failover) must not crash the process.
    pool.on('error', () => undefined);
    const kysely = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
    return { kysely, dialect: 'postgres', close: () => kysely.destroy() };
  }
  mkdirSync(dirname(config.file), { recursive: true, mode: 0o700 });
  createPrivateFile(config.file);
  const sqlite = new SQLite(config.file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Savepoints (group-commit.ts) journal every page a unit changes; in a file once past 64 KiB.
  sqlite.pragma('temp_store = MEMORY');
  const cached = withStatementCache(sqlite);
  const kysely = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: cached }) });
  const database: { -readonly [K in keyof Database]: Database[K] } = {
    kysely,
    dialect: 'sqlite',
    readRowNow: <T>(sql: string, parameters: readonly unknown[]) => (sqlite.inTransaction ? IN_TRANSACTION : (cached.prepare(sql).get(...parameters) as T | undefined)),
    runNow: (sql, parameters) => runStatement(cached.prepare(sql), parameters),
    close: async () => {
      await kysely.destroy();
    },
  };
  database.commitGroup = new CommitGroup(database);
  return database;
}

/** What Kysely's SQLite driver answers for a statement (kysely/dist/esm/dialect/sqlite/sqlite-driver.js). */
function runStatement(statement: SQLite.Statement, parameters: readonly unknown[]): QueryResult<unknown> {
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

/** Creates an empty file readable by its owner only; SQLite gives its WAL and shm files the same mode. */
function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/**
 * Kysely prepares every query anew; preparing costs more than running a small indexed query, so
 * statements are kept by their SQL text (a bounded set: our queries are built from fixed shapes).
 */
function withStatementCache(sqlite: SQLite.Database): SQLite.Database {
  const statements = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property !== 'prepare') {
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      }
      return (source: string) => {
        let statement = statements.get(source);
        if (!statement) {
          statement = prepare(source);
          if (statements.size >= 2000) statements.delete(statements.keys().next().value!);
          statements.set(source, statement);
        }
        return statement;
      };
    },
  });
}
