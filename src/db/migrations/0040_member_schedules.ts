import type { Kysely, Migration } from 'kysely';

/**
 * A share's own weekly hours (shared decisions §8, issue 29): ADD_USER's `schedule`, a JSON array
 * of time requirements, on the share and on a share held until the email is verified. Null: no
 * hours of its own (every share made before, and by clients that do not send one).
 */
export function memberSchedulesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('lock_members').addColumn('schedule', 'text').execute();
      await db.schema.alterTable('held_invite_shares').addColumn('schedule', 'text').execute();
    },
  };
}
