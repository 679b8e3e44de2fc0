import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Unlock on the LAN and what a lock does on its own (device protocol 1.3, issue 28 point 3 and
 * issue 26 point 4): the LAN addresses a lock announces (JSON array text, null before it says),
 * shown in `settings.directAccessEndpoints` only while its owner allows it (`direct_access`), and
 * the operation reports already recorded, one row per lock and report id, so that a report heard
 * twice (QoS 1, every instance) is audited once.
 */
export function directAccessMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('locks').addColumn('direct_access', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('locks').addColumn('direct_access_endpoints', 'text').execute();
      await db.schema
        .createTable('lock_operation_reports')
        .addColumn('lock_id', 'text', (c) => c.notNull())
        .addColumn('report_id', 'text', (c) => c.notNull())
        .addColumn('recorded_at', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('lock_operation_reports_pk', ['lock_id', 'report_id'])
        .execute();
      await db.schema.createIndex('lock_operation_reports_recorded').on('lock_operation_reports').column('recorded_at').execute();
    },
  };
}
