import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * Visitors (issue 28 point 6, `/share/invite/{email}?visitor=true`): an invitee who gets a web
 * link instead of an account. One row per visitor: the hash of their one-time link's secret, until
 * when it may be used, and when it was.
 */
export function visitorInvitationsMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('visitor_invitations')
        .addColumn('user_id', 'text', (c) => c.primaryKey())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created', t.time, (c) => c.notNull())
        .addColumn('expires_at', t.time, (c) => c.notNull())
        .addColumn('used_at', t.time)
        .execute();
    },
  };
}
