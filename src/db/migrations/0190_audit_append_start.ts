import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * PostgreSQL only (issue 33 point 3): what an audit append reads, in one round trip instead of
 * two (src/audit/record.ts). It locks the tree head (held to commit: audit writers take turns),
 * reading beside it the actor's and the subject's user rows as the statement found them, before
 * any wait for that lock; then, in a statement of its own, so with a snapshot taken after the lock
 * was granted (a VOLATILE function's statements each take one under READ COMMITTED), the hash of
 * the lock's last entry: the entry of the writer it waited for included. SQLite runs one write
 * transaction at a time and keeps its two reads.
 */
export function auditAppendStartMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`
        create function audit_append_start(p_lock_id text, p_actor_id text, p_subject_id text)
        returns table (size bigint, frontier bytea, actor_email text, actor_display_name text, subject_email text, subject_display_name text, last_hash text)
        language plpgsql volatile as $fn$
        begin
          select head.size, head.frontier, actor.email, actor.display_name, subject.email, subject.display_name
            into size, frontier, actor_email, actor_display_name, subject_email, subject_display_name
            from audit_tree_head as head
            left join users as actor on actor.id = p_actor_id
            left join users as subject on subject.id = p_subject_id
            where head.id = 1
            for update of head;
          if not found then return; end if;
          select e.hash into last_hash from audit_entries as e where e.lock_id = p_lock_id order by e.seq desc limit 1;
          return next;
        end
        $fn$`.execute(db);
    },
  };
}
