import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * The lock's own time (`ts`) of the newest state or door event recorded (issue 33 point 2): with
 * shared subscriptions a lock's reports are spread over the instances and may be recorded out of
 * order; one older than what is recorded is not applied (src/locks/state.ts, claimReportTime).
 */
export function lockReportTimeMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('locks').addColumn('report_ts', t.time).execute();
    },
  };
}
