import type { Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { accountsMigration } from './0001_accounts.js';

/**
 * Every migration, registered explicitly and in order. Migrations are immutable once merged:
 * change the schema with a new numbered file.
 */
export function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '0001_accounts': accountsMigration(dialect),
  };
}
