import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';

/**
 * PostgreSQL only (issue 33 point 3, fourth step): the audit's PL/pgSQL functions on an unlock's
 * path (0230's audit_append, 0250's report_locked) plan their statements once per connection.
 * PL/pgSQL caches each statement's plan, but a statement with parameters is planned anew for
 * every call (a custom plan) while the custom plans cost less than the generic one, as
 * PostgreSQL estimates them; audit_append's head read, joined with the actor's and subject's
 * rows by id, folds to nothing when they are null (an entry without a user: a relock), so it was
 * planned on every call: 17 % of a backend's CPU appending entries (perf). The generic plans are
 * the index lookups the custom ones are (the head and users by primary key, the lock's last entry
 * by (lock_id, seq) backwards). An ALTER of the functions' settings, not of their signatures: an
 * instance of the previous release calls them as before.
 */
export function genericPlansMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'postgres') return;
      await sql`alter function audit_append(text, text, text, text, double precision, text, text, text, text, integer, text, text, integer, text[], boolean, bigint)
        set plan_cache_mode = force_generic_plan`.execute(db);
      await sql`alter function report_locked(text, integer, double precision, double precision, double precision, integer, integer, integer, integer, text,
        boolean, text, double precision, text, text, integer, text[], boolean) set plan_cache_mode = force_generic_plan`.execute(db);
    },
  };
}
