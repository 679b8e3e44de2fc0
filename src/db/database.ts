import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config/config.js';
import type { DatabaseSchema } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

/** The service's database: a Kysely instance plus what callers need to know about its engine. */
export interface Database {
  readonly kysely: Kysely<DatabaseSchema>;
  readonly dialect: DialectName;
  close(): Promise<void>;
}

// int8 (COUNT, bigserial) arrives as a string by default; our values fit in a double.
pg.types.setTypeParser(20, (value) => Number(value));

export function openDatabase(config: Config['database']): Database {
  if (config.kind === 'postgres') {
    const pool = new pg.Pool({ connectionString: config.url, max: 10 });
    const kysely = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
    return { kysely, dialect: 'postgres', close: () => kysely.destroy() };
  }
  mkdirSync(dirname(config.file), { recursive: true });
  const sqlite = new SQLite(config.file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const kysely = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: sqlite }) });
  return {
    kysely,
    dialect: 'sqlite',
    close: async () => {
      await kysely.destroy();
    },
  };
}
