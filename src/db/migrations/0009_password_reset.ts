import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Password reset tokens (single use, stored as SHA-256) and the ephemeral key a user registered
 * with, which their first certificate request may use without a secondary check.
 */
export function passwordResetMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('password_reset_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('expires_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('password_reset_tokens_user').on('password_reset_tokens').column('user_id').execute();

      await db.schema
        .createTable('registration_keys')
        .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('created', t.time, (c) => c.notNull())
        .execute();
    },
  };
}
