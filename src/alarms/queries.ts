import { sql, type Selectable } from 'kysely';
import { activeAdmin, anActiveAdmin } from '../access/active-admin.js';
import type { DialectName } from '../db/database.js';
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

export function readThresholdRow(db: Executor, lockId: string) {
  return db.selectFrom('lock_alarm_settings').select(['held_open_seconds', 'offline_seconds', 'refused_unlocks', 'refused_window_seconds', 'mail_off']).where('lock_id', '=', lockId).executeTakeFirst();
}

/** Stores the lock's own settings (all of them: the caller merged what it changes with what was stored). */
export async function storeAlarmSettings(db: Executor, lockId: string, values: { heldOpenSeconds: number; offlineSeconds: number; refusedUnlocks: number; refusedWindowSeconds: number; mailOff: string | null }, now: number): Promise<void> {
  const row = { held_open_seconds: values.heldOpenSeconds, offline_seconds: values.offlineSeconds, refused_unlocks: values.refusedUnlocks, refused_window_seconds: values.refusedWindowSeconds, mail_off: values.mailOff, updated: now };
  await db
    .insertInto('lock_alarm_settings')
    .values({ lock_id: lockId, ...row })
    .onConflict((oc) => oc.column('lock_id').doUpdateSet(row))
    .execute();
}

/** The times (newest first) of the lock's last `limit` refused unlocks, leaving out those refused as "no reply in time". */
export async function recentRefusedUnlocks(db: Executor, lockId: string, limit: number, noReplyMessage: string): Promise<number[]> {
  const rows = await db
    .selectFrom('audit_entries')
    .select('timestamp')
    .where('lock_id', '=', lockId)
    .where('type', '=', 'DOOR_UNLOCK')
    .where('rejected', '=', 1)
    .where('message', '!=', noReplyMessage)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.timestamp);
}

/**
 * The live columns the door and presence alarms are decided on. On PostgreSQL the row stays
 * locked until the transaction ends, so a report changing the door waits for the alarm decision
 * (and the decision sees a change committed before it).
 */
export function readLiveForAlarms(db: Executor, dialect: DialectName, lockId: string) {
  const query = db
    .selectFrom('locks')
    .select(['locked', 'door_open', 'door_changed_at', 'connected', 'presence_changed_at', 'claimed_at'])
    .where('id', '=', lockId);
  return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

const page = 200;

/**
 * Claimed locks whose door has been open at least their held-open threshold at `now`, with no
 * `held_open` alarm open (candidates: the watch decides again on the locked row).
 */
export async function heldOpenCandidates(db: Executor, now: number, defaultSeconds: number): Promise<string[]> {
  const rows = await db
    .selectFrom('locks as l')
    .leftJoin('lock_alarm_settings as s', 's.lock_id', 'l.id')
    .select('l.id')
    .where('l.door_open', '=', 1)
    .where('l.claimed_at', 'is not', null)
    .where('l.door_changed_at', 'is not', null)
    .where(sql<boolean>`l.door_changed_at + coalesce(s.held_open_seconds, ${defaultSeconds}) <= ${now}`)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('lock_alarms as a').select('a.id').whereRef('a.lock_id', '=', 'l.id').where('a.kind', '=', 'held_open').where('a.cleared_at', 'is', null))))
    .limit(page)
    .execute();
  return rows.map((row) => row.id);
}

/** Claimed locks offline at least their offline threshold at `now`, with no `offline` alarm open. */
export async function offlineCandidates(db: Executor, now: number, defaultSeconds: number): Promise<string[]> {
  const rows = await db
    .selectFrom('locks as l')
    .leftJoin('lock_alarm_settings as s', 's.lock_id', 'l.id')
    .select('l.id')
    .where('l.connected', '=', 0)
    .where('l.claimed_at', 'is not', null)
    .where('l.presence_changed_at', 'is not', null)
    .where(sql<boolean>`l.presence_changed_at + coalesce(s.offline_seconds, ${defaultSeconds}) <= ${now}`)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('lock_alarms as a').select('a.id').whereRef('a.lock_id', '=', 'l.id').where('a.kind', '=', 'offline').where('a.cleared_at', 'is', null))))
    .limit(page)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Open alarms whose condition the lock row no longer shows (a door alarm on a closed door, `offline`
 * on a lock online): normally cleared by the report that ended it; the watch catches any missed.
 */
export function staleAlarms(db: Executor): Promise<Array<{ lock_id: string; kind: string }>> {
  return db
    .selectFrom('lock_alarms as a')
    .innerJoin('locks as l', 'l.id', 'a.lock_id')
    .select(['a.lock_id', 'a.kind'])
    .where('a.cleared_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb.and([eb('a.kind', 'in', ['held_open', 'forced_open']), eb.or([eb('l.door_open', 'is', null), eb('l.door_open', '!=', 1)])]),
        eb.and([eb('a.kind', '=', 'offline'), eb('l.connected', '=', 1)]),
      ]))
    .limit(page)
    .execute();
}

/** Locks with an open alarm of `kind` (for `refused_unlocks` and `keypad_locked_out`, few: they clear once their time passes). */
export async function locksWithOpenAlarm(db: Executor, kind: string): Promise<string[]> {
  const rows = await db.selectFrom('lock_alarms').select('lock_id').where('kind', '=', kind).where('cleared_at', 'is', null).execute();
  return rows.map((row) => row.lock_id);
}

/** When the lock's keypad lockout ends (what its last report said, src/keypad-codes/uses.ts), or null. */
export async function keypadLockoutEnd(db: Executor, lockId: string): Promise<number | null> {
  const row = await db.selectFrom('keypad_locks').select('lockout_until').where('lock_id', '=', lockId).executeTakeFirst();
  return row?.lockout_until ?? null;
}

export interface AlarmMailRecipient {
  email: string;
  namespace: string;
  /** The recipient's own name for the lock, if they gave it one. */
  alias: string | null;
  /** The name the operator provisioned the lock with. */
  lockName: string;
}

/** The lock's administrators active at `now` whose email is verified: who hears of its alarms. */
export async function alarmMailRecipients(db: Executor, lockId: string, now: number): Promise<AlarmMailRecipient[]> {
  const rows = await db
    .selectFrom('lock_members as admin')
    .innerJoin('users', 'users.id', 'admin.user_id')
    .innerJoin('locks', 'locks.id', 'admin.lock_id')
    .select(['users.email', 'users.namespace', 'admin.alias', 'locks.name as lockName'])
    .where('admin.lock_id', '=', lockId)
    .where(anActiveAdmin(now))
    .where('users.email_verified', '=', 1)
    .where('users.email', 'is not', null)
    .orderBy('users.id')
    .execute();
  return rows.map((row) => ({ email: row.email!, namespace: row.namespace, alias: row.alias, lockName: row.lockName }));
}

/** The open (`cleared` false) or cleared alarms of the locks (of `siteId`, or all) that `userId` administers at `now`, most recently raised first. */
export function administeredAlarms(db: Executor, siteId: string | null, userId: string, now: number, cleared: boolean, limit: number): Promise<AlarmRow[]> {
  return db
    .selectFrom('lock_alarms as a')
    .innerJoin('locks', 'locks.id', 'a.lock_id')
    .innerJoin('lock_members as admin', 'admin.lock_id', 'a.lock_id')
    .selectAll('a')
    .$if(siteId !== null, (q) => q.where('locks.site_id', '=', siteId!))
    .where(activeAdmin(userId, now))
    .where('a.cleared_at', cleared ? 'is not' : 'is', null)
    .orderBy('a.raised_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(limit)
    .execute();
}
