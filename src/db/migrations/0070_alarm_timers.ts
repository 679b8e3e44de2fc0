import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Timed alarms (issue 31 point 2: held open, offline, repeated refused unlocks). A lock row keeps
 * when its door and its presence last changed, so the alarm watch derives "open for longer than
 * N seconds" from stored state (it survives a restart, and any instance can tell). Each lock may
 * have its own thresholds (`lock_alarm_settings`; a missing row or a null column: the default).
 * Existing rows take their `updated` as the time of the last change.
 */
export function alarmTimersMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('locks').addColumn('door_changed_at', t.time).execute();
      await db.schema.alterTable('locks').addColumn('presence_changed_at', t.time).execute();
      await sql`UPDATE locks SET door_changed_at = updated WHERE door_open IS NOT NULL`.execute(db);
      await sql`UPDATE locks SET presence_changed_at = updated`.execute(db);
      await db.schema
        .createTable('lock_alarm_settings')
        .addColumn('lock_id', 'text', (c) => c.primaryKey())
        .addColumn('held_open_seconds', 'integer')
        .addColumn('offline_seconds', 'integer')
        .addColumn('refused_unlocks', 'integer')
        .addColumn('refused_window_seconds', 'integer')
        .addColumn('updated', t.time, (c) => c.notNull())
        .execute();
    },
  };
}
