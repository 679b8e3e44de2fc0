import { assertAllowed, canReadAdminData } from '../access/member-policy.js';
import type { Caller } from '../accounts/caller.js';
import { findReaderEnrolment } from '../audit/queries.js';
import type { AppContext } from '../context.js';
import type { UnitOfWork } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { alarmConditions, type AlarmKind } from './kinds.js';
import { administeredAlarms, clearedAlarms, openAlarms, readLockHealth, type AlarmRow } from './queries.js';
import { isMemberOfSite } from '../sites/queries.js';
import { endAlarm, raiseAlarm } from './raise.js';

/** How many cleared alarms GET /device/{id}/alarms and GET /site/{id}/alarms list. */
export const HISTORY_LIMIT = 100;
/** How many open alarms GET /site/{id}/alarms lists at most (one of each kind a lock). */
const OPEN_LIMIT = 1000;

/**
 * Raises and clears the lock's alarms from the health its row now holds, in the transaction that
 * stored it: each change is conditional (src/alarms/queries.ts), so only the instance that made it
 * audits it (ALARM_RAISED / ALARM_CLEARED, on the live stream after commit). Returns what changed.
 */
export async function deriveAlarms(ctx: AppContext, uow: UnitOfWork, lockId: string, at: number): Promise<Array<{ kind: AlarmKind; raised: boolean }>> {
  const health = await readLockHealth(uow.db, lockId);
  if (!health) return [];
  const changed: Array<{ kind: AlarmKind; raised: boolean }> = [];
  for (const [kind, holds] of alarmConditions(health)) {
    const battery = kind.startsWith('battery') ? ` (${health.battery} %)` : '';
    const did = holds ? await raiseAlarm(ctx, uow, lockId, kind, at, battery) : await endAlarm(ctx, uow, lockId, kind, at, battery);
    if (did) changed.push({ kind, raised: holds });
  }
  return changed;
}

/** A lock's open alarms and recent history, for its active admins (404 for a non-member, 403 for a user). */
export async function readLockAlarms(ctx: AppContext, caller: Caller, lockId: string): Promise<{ open: AlarmRow[]; history: AlarmRow[] }> {
  const db = ctx.db.kysely;
  const member = await findReaderEnrolment(db, lockId, caller.userId);
  if (!member) throw errors.notFound('lock');
  assertAllowed(canReadAdminData(member, ctx.now()));
  return { open: await openAlarms(db, lockId), history: await clearedAlarms(db, lockId, HISTORY_LIMIT) };
}

/** The open alarms and recent history of a site's locks that the caller administers (404 unless they are a member of one of its locks). */
export async function readSiteAlarms(ctx: AppContext, caller: Caller, siteId: string): Promise<{ open: AlarmRow[]; history: AlarmRow[] }> {
  const db = ctx.db.kysely;
  if (!(await isMemberOfSite(db, siteId, caller.userId))) throw errors.notFound('site');
  return administeredBy(ctx, caller, siteId);
}

/** The open alarms and recent history of every lock the caller administers (GET /alarms: the console's list of locks; none for a caller who administers none). */
export function readAdministeredAlarms(ctx: AppContext, caller: Caller): Promise<{ open: AlarmRow[]; history: AlarmRow[] }> {
  return administeredBy(ctx, caller, null);
}

async function administeredBy(ctx: AppContext, caller: Caller, siteId: string | null): Promise<{ open: AlarmRow[]; history: AlarmRow[] }> {
  const db = ctx.db.kysely;
  const now = ctx.now();
  return { open: await administeredAlarms(db, siteId, caller.userId, now, false, OPEN_LIMIT), history: await administeredAlarms(db, siteId, caller.userId, now, true, HISTORY_LIMIT) };
}
