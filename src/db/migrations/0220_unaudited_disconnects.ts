import { sql, type Kysely, type Migration } from 'kysely';

/**
 * A disconnect not yet in the audit trail (issue 33 point 1). A service with the embedded broker
 * starts with every lock disconnected; it stores that at once, in one statement, and marks each
 * lock so; the DEVICE_DISCONNECTED entries are written after it serves, in the background, or
 * before the lock's DEVICE_CONNECTED when it comes back first (src/lock-link/disconnect-sweep.ts).
 * The mark is in the row, so a crash in between loses no entry.
 */
export function unauditedDisconnectsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('locks').addColumn('disconnect_unaudited', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.createIndex('locks_disconnect_unaudited').on('locks').column('id').where(sql.ref('disconnect_unaudited'), '=', 1).execute();
    },
  };
}
