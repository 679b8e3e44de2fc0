import type { Kysely, Migration } from 'kysely';

/**
 * The client an actor used, on each audit entry (issue 28): the address their request came from
 * and the official SDK's user agent read from its User-Agent (type and version), hashed from
 * `hash_version` 3 on (src/audit/log-format.ts). Entries recorded before keep their format and
 * read as null.
 */
export function auditClientsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const column of ['actor_ip', 'user_agent_type', 'user_agent_version']) {
        await db.schema.alterTable('audit_entries').addColumn(column, 'text').execute();
      }
    },
  };
}
