import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * An application's sender address, proved (issue 27 point 2): its branding reaches mail only once
 * the address it sends from has answered a code. `sender_verified_email` is the address proved
 * (branding applies while it is still the preferences' `senderEmail`); a pending code is kept as
 * its SHA-256, with the address it was sent to and when it expires.
 */
export function applicationSenderMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('applications').addColumn('sender_verified_email', 'text').execute();
      await db.schema.alterTable('applications').addColumn('sender_code_hash', 'text').execute();
      await db.schema.alterTable('applications').addColumn('sender_code_email', 'text').execute();
      await db.schema.alterTable('applications').addColumn('sender_code_expires_at', t.time).execute();
    },
  };
}
