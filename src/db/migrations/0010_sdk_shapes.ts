import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * What the official SDK's models need beyond the spec (docs/decisions.md, "SDK shapes"):
 * - `hidden`: a member's own "hide this lock" flag, beside `favourite` (also on held shares,
 *   which are lock_members rows held aside);
 * - `tile_locks`: a tile opens several locks (PUT /tile/{id}). `tiles.lock_id` is superseded:
 *   its links move here and it stays null (SQLite cannot drop a column under a foreign key);
 * - `certified_keys`: the Ed25519 key each user had certified last, shown as their publicKey
 *   when they have no legacy RSA key;
 * - `users_namespace_id`: an application's users in id order (keyset pages of
 *   GET /platform/application/{id}/user).
 */
export function sdkShapesMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('lock_members').addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('held_invite_shares').addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0)).execute();

      await db.schema
        .createTable('tile_locks')
        .addColumn('tile_id', 'text', (c) => c.notNull().references('tiles.id').onDelete('cascade'))
        .addColumn('lock_id', 'text', (c) => c.notNull().references('locks.id').onDelete('cascade'))
        .addColumn('created', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('tile_locks_pk', ['tile_id', 'lock_id'])
        .execute();
      await db.schema.createIndex('tile_locks_lock').on('tile_locks').columns(['lock_id', 'tile_id']).execute();
      await sql`insert into tile_locks (tile_id, lock_id, created) select id, lock_id, updated from tiles where lock_id is not null`.execute(db);
      await sql`update tiles set lock_id = null`.execute(db);

      await db.schema
        .createTable('certified_keys')
        .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('certified_at', t.time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('users_namespace_id').on('users').columns(['namespace', 'id']).execute();
    },
  };
}
