import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Decommissioned locks (issue 28, DEVICE_DECOMMISSIONED): set once an owner retires a lock; its
 * members, device secret, device certificate and registration key stop counting from then on.
 */
export function lockDecommissionMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('locks').addColumn('decommissioned_at', columnTypes(dialect).time).execute();
    },
  };
}
