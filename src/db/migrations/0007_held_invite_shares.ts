import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * The shares of a pending invite whose email was registered but not yet proved: the rows of
 * lock_members, held aside until the registrant verifies the address (src/invites/held-shares.ts).
 */
export function heldInviteSharesMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('held_invite_shares')
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
        .addPrimaryKeyConstraint('held_invite_shares_pk', ['user_id', 'lock_id'])
        .execute();
    },
  };
}
