import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * PostgreSQL only: 0190's `audit_append_start` is not called since 0230's `audit_append` reads what
 * it read, in the same order, within the whole append (src/audit/record.ts). Dropped, so the
 * schema holds one definition of how an append reads the head, the parties and the last hash.
 */
export function dropAuditAppendStartMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`drop function if exists audit_append_start(text, text, text)`.execute(db);
    },
  };
}
