import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * An operation in flight on a lock: set before a MUTATE_LOCK command is sent, so whichever
 * instance sees the resulting state change first can tell it was caused by that user's
 * command (audited by the execute path) rather than by a key or button on the lock.
 */
export function lockCommandsMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('locks').addColumn('pending_actor_user_id', 'text').execute();
      await db.schema.alterTable('locks').addColumn('pending_target_locked', 'integer').execute();
      await db.schema.alterTable('locks').addColumn('pending_until', t.time).execute();
    },
  };
}
