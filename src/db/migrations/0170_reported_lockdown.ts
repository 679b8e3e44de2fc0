import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * The lockdown a lock says it enforces (device protocol 1.4 `state.lockdown`, issue 31 point 4):
 * its id, '' when it reports none, null while it never said (a lock of 1.3 or older); and when
 * that last changed. What was declared stays in `lockdowns` (migration 0072).
 */
export function reportedLockdownMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('locks').addColumn('reported_lockdown', 'text').execute();
      await db.schema.alterTable('locks').addColumn('reported_lockdown_at', t.time).execute();
    },
  };
}
