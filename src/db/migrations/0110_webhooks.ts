import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Webhooks (issue 32): endpoints, the outbox of audit entries not yet fanned out, deliveries and
 * their attempts (src/webhooks/tables.ts). An endpoint goes with its owner or application.
 */
export function webhooksMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner_user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('application_id', 'text', (c) => c.references('applications.id').onDelete('cascade'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('event_types', 'text')
        .addColumn('lock_ids', 'text')
        .addColumn('site_ids', 'text')
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('disabled_reason', 'text')
        .addColumn('secret_sealed', 'text', (c) => c.notNull())
        .addColumn('previous_secret_sealed', 'text')
        .addColumn('previous_secret_until', t.time)
        .addColumn('failure_streak', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('failing_since', t.time)
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('updated', t.time, (c) => c.notNull())
        .addCheckConstraint('webhook_endpoints_one_owner', sql`(owner_user_id IS NULL) <> (application_id IS NULL)`)
        .execute();
      await db.schema.createIndex('webhook_endpoints_owner').on('webhook_endpoints').column('owner_user_id').execute();
      await db.schema.createIndex('webhook_endpoints_application').on('webhook_endpoints').column('application_id').execute();

      await db.schema
        .createTable('webhook_outbox')
        .addColumn('audit_seq', 'bigint', (c) => c.primaryKey())
        .addColumn('created', t.time, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('audit_seq', 'bigint')
        .addColumn('lock_id', 'text')
        .addColumn('payload', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', t.time, (c) => c.notNull())
        .addColumn('window_start', t.time, (c) => c.notNull())
        .addColumn('delivered_at', t.time)
        .addColumn('created', t.time, (c) => c.notNull())
        .execute();
      // Fanning out an entry twice (a retried batch) adds nothing.
      await db.schema.createIndex('webhook_deliveries_entry').unique().on('webhook_deliveries').columns(['endpoint_id', 'audit_seq']).execute();
      await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['state', 'next_attempt_at']).execute();
      await db.schema.createIndex('webhook_deliveries_lock_order').on('webhook_deliveries').columns(['endpoint_id', 'lock_id', 'state', 'audit_seq']).execute();
      await db.schema.createIndex('webhook_deliveries_log').on('webhook_deliveries').columns(['endpoint_id', 'created']).execute();

      await db.schema
        .createTable('webhook_attempts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
        .addColumn('endpoint_id', 'text', (c) => c.notNull())
        .addColumn('at', t.time, (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('latency_ms', t.time, (c) => c.notNull())
        .addColumn('response_excerpt', 'text')
        .addColumn('error', 'text')
        .execute();
      await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').columns(['delivery_id', 'at']).execute();
    },
  };
}
