import type { Kysely, Migration } from 'kysely';

/**
 * Which alarms of a lock are emailed to its administrators (issue 31 point 2): the kinds its
 * administrators turned off, comma-separated; null (or no settings row) mails every kind.
 */
export function alarmMailMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('lock_alarm_settings').addColumn('mail_off', 'text').execute();
    },
  };
}
