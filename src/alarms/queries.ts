import type { Selectable } from 'kysely';
import type { Executor } from '../db/transaction.js';
import type { LockAlarmsTable } from './tables.js';

export type AlarmRow = Selectable<LockAlarmsTable>;

/** Opens an alarm unless one of its kind is open on the lock; true when this call opened it. */
export async function openAlarm(db: Executor, alarm: { id: string; lockId: string; kind: string; at: number }): Promise<boolean> {
  const result = await db
    .insertInto('lock_alarms')
    .values({ id: alarm.id, lock_id: alarm.lockId, kind: alarm.kind, raised_at: alarm.at, cleared_at: null })
    .onConflict((oc) => oc.columns(['lock_id', 'kind']).where('cleared_at', 'is', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  return result !== undefined;
}

/** Clears the lock's open alarm of `kind`; true when this call did. */
export async function clearAlarm(db: Executor, lockId: string, kind: string, at: number): Promise<boolean> {
  const result = await db.updateTable('lock_alarms').set({ cleared_at: at }).where('lock_id', '=', lockId).where('kind', '=', kind).where('cleared_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function readLockHealth(db: Executor, lockId: string) {
  return db.selectFrom('locks').select(['battery', 'jammed', 'tamper']).where('id', '=', lockId).executeTakeFirst();
}

export function openAlarms(db: Executor, lockId: string): Promise<AlarmRow[]> {
  return db.selectFrom('lock_alarms').selectAll().where('lock_id', '=', lockId).where('cleared_at', 'is', null).orderBy('raised_at', 'desc').orderBy('id', 'desc').execute();
}

/** The lock's cleared alarms, most recently raised first. */
export function clearedAlarms(db: Executor, lockId: string, limit: number): Promise<AlarmRow[]> {
  return db.selectFrom('lock_alarms').selectAll().where('lock_id', '=', lockId).where('cleared_at', 'is not', null).orderBy('raised_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
