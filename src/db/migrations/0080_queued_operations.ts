import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Signed operations queued for a lock (issue 28 point 4): an operation whose `exp` is more than a
 * minute away is answered 202 and kept here until the lock is online, then carried out in the
 * order it arrived (`seq`). `state` is QUEUED, DELIVERING (claimed by one instance until
 * `lease_until`), DELIVERED, REFUSED or EXPIRED; the last three keep their outcome.
 */
export function queuedOperationsMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('queued_operations')
        .addColumn('seq', t.serial, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('lock_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('operation_type', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('caller_ip', 'text', (c) => c.notNull())
        .addColumn('user_agent', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('expires_at', t.time, (c) => c.notNull())
        .addColumn('lease_until', t.time)
        .addColumn('finished_at', t.time)
        .addColumn('error', 'text')
        .addColumn('error_message', 'text')
        .execute();
      await db.schema.createIndex('queued_operations_lock_state').on('queued_operations').columns(['lock_id', 'state', 'seq']).execute();
      await db.schema.createIndex('queued_operations_state_expiry').on('queued_operations').columns(['state', 'expires_at']).execute();
    },
  };
}
