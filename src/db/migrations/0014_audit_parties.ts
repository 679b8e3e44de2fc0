import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Who acted and who was acted on, as they were when an entry was recorded (issue 15 §5): the
 * actor's and the subject's email and display name on `audit_entries`, and the format of the
 * entry's hash (`hash_version`: 2 hashes these four columns, src/audit/chain.ts). Entries
 * recorded before keep format 1, which they were hashed in; their four columns are filled here
 * from the users rows as they are now (null for users already deleted), so they read as of this
 * migration and are not covered by their hash (docs/audit-log.md).
 */
export function auditPartiesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const column of ['actor_email', 'actor_display_name', 'subject_email', 'subject_display_name']) {
        await db.schema.alterTable('audit_entries').addColumn(column, 'text').execute();
      }
      await db.schema.alterTable('audit_entries').addColumn('hash_version', 'integer', (c) => c.notNull().defaultTo(1)).execute();
      // UPDATE … FROM: one pass over each side's join on both engines (SQLite ≥ 3.33).
      await sql`update audit_entries set actor_email = u.email, actor_display_name = u.display_name from users as u where u.id = audit_entries.actor_user_id`.execute(db);
      await sql`update audit_entries set subject_email = u.email, subject_display_name = u.display_name from users as u where u.id = audit_entries.subject_user_id`.execute(db);
    },
  };
}
