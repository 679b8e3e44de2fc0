import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Lockdowns (issue 31 point 3): each declaration as signed (`lockdowns`), the lifts signed so far
 * (`lockdown_lifts`, one per administrator), and the lockdown each lock is under or was last under
 * (`lockdown_locks`, kept once lifted so that the lock's config still carries the lifts to a lock
 * that was offline).
 */
export function lockdownsMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('lockdowns')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('declared_by', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('responders', 'text', (c) => c.notNull())
        .addColumn('quorum', 'integer', (c) => c.notNull())
        .addColumn('created', t.time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('lockdown_lifts')
        .addColumn('lockdown_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('locks', 'text', (c) => c.notNull())
        .addColumn('created', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('lockdown_lifts_pk', ['lockdown_id', 'user_id'])
        .execute();
      await db.schema
        .createTable('lockdown_locks')
        .addColumn('lock_id', 'text', (c) => c.primaryKey())
        .addColumn('lockdown_id', 'text', (c) => c.notNull())
        .addColumn('lifted_at', t.time)
        .execute();
    },
  };
}
