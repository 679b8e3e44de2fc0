import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Sites, locks, their members and tiles (src/locks, src/sites, src/tiles). Every per-user read
 * starts from `lock_members_user (user_id, lock_id)` and reaches locks, sites and tiles by
 * primary key or by `tiles_lock`, so a user's lock list costs the same however many locks the
 * database holds.
 */
export function locksMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('sites')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('logo_url', 'text')
        .addColumn('colour', 'text', (c) => c.notNull())
        .addColumn('latitude', t.time)
        .addColumn('longitude', t.time)
        .addColumn('radius', t.time)
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('updated', t.time, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('locks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('site_id', 'text', (c) => c.references('sites.id').onDelete('set null'))
        .addColumn('registration_key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('secret_hash', 'text', (c) => c.notNull())
        .addColumn('owner_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('claimed_at', t.time)
        .addColumn('unlock_time', 'integer', (c) => c.notNull().defaultTo(5))
        .addColumn('permitted_addresses', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('default_name', 'text')
        .addColumn('usage_requirements', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('unlock_between', 'text')
        .addColumn('tx_beacon_rssi', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('rx_beacon_rssi', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('proximity_unlock', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('delay', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('locked', 'integer')
        .addColumn('door_open', 'integer')
        .addColumn('connected', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_operation', t.time)
        .addColumn('config_version', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('updated', t.time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('locks_site').on('locks').column('site_id').execute();
      await db.schema.createIndex('locks_owner').on('locks').column('owner_user_id').execute();

      await db.schema
        .createTable('lock_members')
        .addColumn('lock_id', 'text', (c) => c.notNull().references('locks.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('ADMIN', 'USER')`))
        .addColumn('starts_at', t.time)
        .addColumn('ends_at', t.time)
        .addColumn('alias', 'text')
        .addColumn('favourite', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('colour', 'text')
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('updated', t.time, (c) => c.notNull())
        .addPrimaryKeyConstraint('lock_members_pk', ['lock_id', 'user_id'])
        .execute();
      await db.schema.createIndex('lock_members_user').on('lock_members').columns(['user_id', 'lock_id']).execute();

      await db.schema
        .createTable('tiles')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('lock_id', 'text', (c) => c.references('locks.id').onDelete('set null'))
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('updated', t.time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('tiles_lock').on('tiles').column('lock_id').execute();
    },
  };
}
