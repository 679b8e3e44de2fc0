import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

export function accountsMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('namespace', 'text', (c) => c.notNull())
        .addColumn('external_id', 'text')
        .addColumn('email', 'text')
        .addColumn('email_normalised', 'text')
        .addColumn('email_verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('telephone', 'text')
        .addColumn('telephone_verified', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('display_name', 'text')
        .addColumn('password_hash', 'text')
        .addColumn('public_key', 'text')
        .addColumn('private_key_sealed', 'text')
        .addColumn('orphan', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('updated', t.time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('users_namespace_email')
        .on('users')
        .columns(['namespace', 'email_normalised'])
        .unique()
        .where(sql.ref('email_normalised'), 'is not', null)
        .execute();
      await db.schema
        .createIndex('users_namespace_external_id')
        .on('users')
        .columns(['namespace', 'external_id'])
        .unique()
        .where(sql.ref('external_id'), 'is not', null)
        .execute();

      await db.schema
        .createTable('sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('expires_at', t.time, (c) => c.notNull())
        .addColumn('revoked_at', t.time)
        .addColumn('refresh_id', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();

      await db.schema
        .createTable('email_verifications')
        .addColumn('code_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('expires_at', t.time, (c) => c.notNull())
        .addColumn('used_at', t.time)
        .execute();
      await db.schema.createIndex('email_verifications_user').on('email_verifications').column('user_id').execute();

      await db.schema
        .createTable('service_keys')
        .addColumn('kid', 'text', (c) => c.primaryKey())
        .addColumn('algorithm', 'text', (c) => c.notNull())
        .addColumn('public_jwk', 'text', (c) => c.notNull())
        .addColumn('private_sealed', 'text', (c) => c.notNull())
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('retired_at', t.time)
        .execute();

      await db.schema
        .createTable('sealed_secrets')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('value_sealed', 'text', (c) => c.notNull())
        .addColumn('created', t.time, (c) => c.notNull())
        .execute();
    },
  };
}
