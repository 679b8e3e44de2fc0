import { loadConfig, type Config } from '../config/config.js';
import { openDatabase, type Database } from '../db/database.js';
import { migrateToLatest } from '../db/migrator.js';
import type { CommandIo } from './command.js';

/**
 * Runs `use` on the database the command's environment names (`loadConfig(io.env, io.cwd)`), brought up
 * to date first (a database never served gets its schema, and an empty one is not a broken one),
 * and closes it whatever `use` does.
 */
export async function withDatabase<T>(io: CommandIo, use: (db: Database, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env, io.cwd);
  const db = openDatabase(config.database);
  try {
    await migrateToLatest(db);
    return await use(db, config);
  } finally {
    await db.close();
  }
}
