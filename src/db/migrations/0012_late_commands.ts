import type { Kysely, Migration } from 'kysely';

/**
 * A lock/unlock command's id on its pending marker, and whether its request already answered 504
 * (src/locks/command-life.ts): a lock carrying it out afterwards is then audited as that user's
 * operation, with the command's id, rather than as one by nobody.
 */
export function lateCommandsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('locks').addColumn('pending_command_id', 'text').execute();
      await db.schema.alterTable('locks').addColumn('pending_late', 'integer').execute();
    },
  };
}
