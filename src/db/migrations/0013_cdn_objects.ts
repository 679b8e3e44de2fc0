import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/** Uploaded logos in the database, so that several instances serve the same ones (issue 17 §5). */
export function cdnObjectsMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('cdn_objects')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('bytes', t.bytes, (c) => c.notNull())
        .addColumn('updated', t.time, (c) => c.notNull())
        .execute();
    },
  };
}
