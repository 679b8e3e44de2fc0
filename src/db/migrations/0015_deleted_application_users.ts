import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * An application user's deletion (DELETE /account), kept after the users row goes: the third
 * party's tokens for that subject issued up to `deleted_at` are refused from then on, instead of
 * recreating the account (src/applications/app-users.ts). One row per (application, subject).
 */
export function deletedApplicationUsersMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('deleted_application_users')
        .addColumn('application_id', 'text', (c) => c.notNull().references('applications.id').onDelete('cascade'))
        .addColumn('external_id', 'text', (c) => c.notNull())
        .addColumn('deleted_at', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('deleted_application_users_pk', ['application_id', 'external_id'])
        .execute();
    },
  };
}
