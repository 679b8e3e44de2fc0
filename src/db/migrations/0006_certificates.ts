import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Ephemeral-key certificates (verified keys, pending secondary checks) and the replay store of
 * signed operations, whose primary key makes concurrent copies of one token collide.
 */
export function certificatesMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('verified_keys')
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('verified_at', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('verified_keys_pk', ['user_id', 'key'])
        .execute();

      await db.schema
        .createTable('certificate_verifications')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('ephemeral_key', 'text', (c) => c.notNull())
        .addColumn('code_sealed', 'text', (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('expires_at', t.time, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('certificate_verifications_user').on('certificate_verifications').columns(['user_id', 'expires_at']).execute();

      await db.schema
        .createTable('used_operation_tokens')
        .addColumn('lock_id', 'text', (c) => c.notNull())
        .addColumn('replay_key', 'text', (c) => c.notNull())
        .addColumn('used_at', t.time, (c) => c.notNull())
        .addColumn('expires_at', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('used_operation_tokens_pk', ['lock_id', 'replay_key'])
        .execute();
      await db.schema.createIndex('used_operation_tokens_expiry').on('used_operation_tokens').column('expires_at').execute();
    },
  };
}
