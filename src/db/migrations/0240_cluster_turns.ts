import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Turns of the cluster (issue 33 point 2, src/db/turns.ts): work that one instance does for all
 * of them (the audit checkpoint's signature, the alarm sweep), one row per kind of work naming its
 * holder and when its turn ends. Rows are made by the first claim.
 */
export function clusterTurnsMigration(dialect: DialectName): Migration {
  const types = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('cluster_turns')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', types.time, (c) => c.notNull())
        .execute();
    },
  };
}
