import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/** Third-party applications, their owners, auth keys, issuers and CORS origins. */
export function applicationsMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('applications')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('company_name', 'text', (c) => c.notNull())
        .addColumn('mailing_address', 'text', (c) => c.notNull())
        .addColumn('privacy_policy', 'text')
        .addColumn('support_contact', 'text')
        .addColumn('app_link', 'text')
        .addColumn('logo_url', 'text')
        .addColumn('email_preferences', 'text')
        .addColumn('encryption_public_jwk', 'text', (c) => c.notNull())
        .addColumn('encryption_private_sealed', 'text', (c) => c.notNull())
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('updated', t.time, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('application_owners')
        .addColumn('application_id', 'text', (c) => c.notNull().references('applications.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('created', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('application_owners_pk', ['application_id', 'user_id'])
        .execute();
      await db.schema.createIndex('application_owners_user').on('application_owners').column('user_id').execute();

      await db.schema
        .createTable('application_auth_keys')
        .addColumn('application_id', 'text', (c) => c.notNull().references('applications.id').onDelete('cascade'))
        .addColumn('kid', 'text', (c) => c.notNull())
        .addColumn('public_jwk', 'text', (c) => c.notNull())
        .addColumn('created', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('application_auth_keys_pk', ['application_id', 'kid'])
        .execute();

      await db.schema
        .createTable('application_issuers')
        .addColumn('url', 'text', (c) => c.primaryKey())
        .addColumn('application_id', 'text', (c) => c.notNull().references('applications.id').onDelete('cascade'))
        .addColumn('created', t.time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('application_issuers_application').on('application_issuers').column('application_id').execute();

      await db.schema
        .createTable('application_cors_origins')
        .addColumn('application_id', 'text', (c) => c.notNull().references('applications.id').onDelete('cascade'))
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('created', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('application_cors_origins_pk', ['application_id', 'origin'])
        .execute();

      // Directory lookups by telephone within a namespace (users belongs to accounts; index only).
      await db.schema.createIndex('users_namespace_telephone').on('users').columns(['namespace', 'telephone']).execute();
    },
  };
}
