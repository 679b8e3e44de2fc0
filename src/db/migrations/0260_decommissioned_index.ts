import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The locks decommissioned since a time (src/lock-link/cut-off.ts: each instance looks every
 * minute for those decommissioned without its hearing of it): an index of the few decommissioned
 * rows, so the look reads those recent ones and not the whole `locks` table.
 */
export function decommissionedIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex('locks_decommissioned_at').on('locks').column('decommissioned_at').where(sql.ref('decommissioned_at'), 'is not', null).execute();
    },
  };
}
