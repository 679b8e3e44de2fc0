import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Alarms the service derives from what a lock reports (issue 31 point 2): one row per alarm, open
 * while `cleared_at` is null. The partial unique index keeps one open alarm per lock and kind, so
 * an alarm is raised once however many instances hear the same report.
 */
export function lockAlarmsMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('lock_alarms')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('lock_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('raised_at', t.time, (c) => c.notNull())
        .addColumn('cleared_at', t.time)
        .execute();
      await db.schema.createIndex('lock_alarms_open').unique().on('lock_alarms').columns(['lock_id', 'kind']).where(sql.ref('cleared_at'), 'is', null).execute();
      await db.schema.createIndex('lock_alarms_lock').on('lock_alarms').columns(['lock_id', 'raised_at']).execute();
    },
  };
}
