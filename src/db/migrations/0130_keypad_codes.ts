import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Keypad codes (issue 30, src/keypad-codes/): a code (its holder, window, schedule, uses; the
 * digits sealed with the key-encryption key) and its place on each lock of its set: the signed
 * ADD_CODE the lock checks, a keyed digest of the digits (two equal live codes on one lock are
 * refused by the partial unique index, without storing them in the clear), uses, removal, and the
 * config version that carried its last change (its sync state).
 */
export function keypadCodesMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('keypad_codes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('holder_user_id', 'text')
        .addColumn('guest_name', 'text')
        .addColumn('sealed', 'text', (c) => c.notNull())
        .addColumn('length', 'integer', (c) => c.notNull())
        .addColumn('starts_at', t.time)
        .addColumn('ends_at', t.time)
        .addColumn('schedule', 'text')
        .addColumn('max_uses', 'integer')
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('updated', t.time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('keypad_codes_holder').on('keypad_codes').column('holder_user_id').execute();
      await db.schema
        .createTable('keypad_code_locks')
        .addColumn('code_id', 'text', (c) => c.notNull())
        .addColumn('lock_id', 'text', (c) => c.notNull())
        .addColumn('digest', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('member_since', t.time)
        .addColumn('uses', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_used_at', t.time)
        .addColumn('removed_at', t.time)
        .addColumn('removed_reason', 'text')
        .addColumn('changed_version', 'integer', (c) => c.notNull())
        .addColumn('sync_error', 'text')
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('updated', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('keypad_code_locks_pk', ['code_id', 'lock_id'])
        .execute();
      await db.schema.createIndex('keypad_code_locks_digest').unique().on('keypad_code_locks').columns(['lock_id', 'digest']).where(sql.ref('removed_at'), 'is', null).execute();
      await db.schema
        .createTable('keypad_locks')
        .addColumn('lock_id', 'text', (c) => c.primaryKey())
        .addColumn('applied_version', 'integer')
        .addColumn('lockout_until', t.time)
        .addColumn('updated', t.time, (c) => c.notNull())
        .execute();
    },
  };
}
