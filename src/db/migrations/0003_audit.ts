import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * The audit trail (src/audit). Deliberately no foreign key to locks or users: entries must
 * survive the deletion of what they describe. The three (x, seq) indexes make the newest page
 * of a lock, of an actor and of a subject one index range read, whatever the table's size.
 */
export function auditMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('audit_entries')
        // AUTOINCREMENT on SQLite: a sequence number is never reused, so event ids stay unique.
        .addColumn('seq', t.serial, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('lock_id', 'text', (c) => c.notNull())
        .addColumn('timestamp', t.time, (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('actor_user_id', 'text')
        .addColumn('subject_user_id', 'text')
        .addColumn('rejected', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('details', 'text')
        .addColumn('prev_hash', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_entries_lock_seq').on('audit_entries').columns(['lock_id', 'seq']).execute();
      await db.schema.createIndex('audit_entries_actor_seq').on('audit_entries').columns(['actor_user_id', 'seq']).execute();
      await db.schema.createIndex('audit_entries_subject_seq').on('audit_entries').columns(['subject_user_id', 'seq']).execute();
    },
  };
}
