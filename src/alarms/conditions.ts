import { auditMessage } from '../audit/types.js';
import type { AppContext } from '../context.js';
import { inTransaction, type Executor, type UnitOfWork } from '../db/transaction.js';
import type { AlarmKind } from './kinds.js';
import { keypadLockoutEnd, readLiveForAlarms, readThresholdRow, recentRefusedUnlocks } from './queries.js';
import { endAlarm, raiseAlarm } from './raise.js';
import { effectiveThresholds, refusalsHold, type AlarmThresholds } from './thresholds.js';

/**
 * The alarms of the door, the presence and refused unlocks, decided inside the transaction of the
 * change that may raise or clear them (a door report, a presence report, a refusal) or by the
 * alarm watch (watch.ts) once a threshold has passed. Every decision reads the stored row, never
 * a timer's memory, so a restarted service (or another instance) decides the same.
 */

export async function thresholdsOf(uow: { db: Executor }, lockId: string): Promise<AlarmThresholds> {
  return effectiveThresholds(await readThresholdRow(uow.db, lockId));
}

/**
 * The door changed. Closed: `held_open` and `forced_open` end. Opened with no unlock:
 * `forced_open` (the lock says so, protocol 1.4 `forced`; or, from a lock that does not say, the
 * door opened while the stored state had the bolt thrown). `held_open` is the watch's.
 */
export async function doorChanged(ctx: AppContext, uow: UnitOfWork, lockId: string, change: { open: boolean; wasKnown: boolean; forced?: boolean }, at: number): Promise<void> {
  if (!change.open) {
    await endAlarm(ctx, uow, lockId, 'held_open', at);
    await endAlarm(ctx, uow, lockId, 'forced_open', at);
    return;
  }
  const live = await readLiveForAlarms(uow.db, uow.dialect, lockId);
  if (!live || live.claimed_at === null) return;
  const forced = change.forced ?? (change.wasKnown && live.locked === 1);
  if (forced) await raiseAlarm(ctx, uow, lockId, 'forced_open', at);
}

/** The lock came online: `offline` ends (raising it is the watch's). */
export async function presenceChanged(ctx: AppContext, uow: UnitOfWork, lockId: string, online: boolean, at: number): Promise<void> {
  if (online) await endAlarm(ctx, uow, lockId, 'offline', at);
}

const NO_REPLY = auditMessage('DOOR_UNLOCK', true, undefined, true);

async function refusalsHoldNow(uow: UnitOfWork, lockId: string, now: number): Promise<{ holds: boolean; thresholds: AlarmThresholds }> {
  const thresholds = await thresholdsOf(uow, lockId);
  const times = await recentRefusedUnlocks(uow.db, lockId, thresholds.refusedUnlocks, NO_REPLY);
  return { holds: refusalsHold(times, thresholds, now), thresholds };
}

/** An unlock of the lock was refused (and audited): `refused_unlocks` once N fall within the window. */
export function unlockRefused(ctx: AppContext, lockId: string): Promise<boolean> {
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const now = ctx.now();
    const { holds, thresholds } = await refusalsHoldNow(uow, lockId, now);
    if (!holds) return false;
    return raiseAlarm(ctx, uow, lockId, 'refused_unlocks', now, ` (${thresholds.refusedUnlocks} within ${thresholds.refusedWindowSeconds} s)`);
  });
}

/**
 * The lock's keypad is locked out until `until` (its clock, Unix seconds; the report that says so
 * is in this transaction and kept the lockout: src/keypad-codes/uses.ts): `keypad_locked_out`,
 * raised once however many refused entries repeat it; the watch clears it once the lockout is over.
 */
export async function keypadLockedOut(ctx: AppContext, uow: UnitOfWork, lockId: string, until: number): Promise<boolean> {
  const now = ctx.now();
  if (until <= now) return false;
  return raiseAlarm(ctx, uow, lockId, 'keypad_locked_out', now, ` (until ${new Date(until * 1000).toISOString()})`);
}

/** What the watch decides for one lock and kind at `now`, on the stored row (locked on PostgreSQL). */
export async function decideTimed(ctx: AppContext, uow: UnitOfWork, lockId: string, kind: AlarmKind, now: number): Promise<void> {
  if (kind === 'refused_unlocks') {
    if (!(await refusalsHoldNow(uow, lockId, now)).holds) await endAlarm(ctx, uow, lockId, kind, now);
    return;
  }
  if (kind === 'keypad_locked_out') {
    const until = await keypadLockoutEnd(uow.db, lockId);
    if (until === null || until <= now) await endAlarm(ctx, uow, lockId, kind, now);
    return;
  }
  const live = await readLiveForAlarms(uow.db, uow.dialect, lockId);
  if (!live) return;
  const thresholds = await thresholdsOf(uow, lockId);
  const claimed = live.claimed_at !== null;
  switch (kind) {
    case 'held_open': {
      const open = live.door_open === 1;
      if (open && claimed && live.door_changed_at !== null && live.door_changed_at + thresholds.heldOpenSeconds <= now) {
        await raiseAlarm(ctx, uow, lockId, kind, now, ` (more than ${thresholds.heldOpenSeconds} s)`);
      } else if (!open) await endAlarm(ctx, uow, lockId, kind, now);
      return;
    }
    case 'forced_open':
      if (live.door_open !== 1) await endAlarm(ctx, uow, lockId, kind, now);
      return;
    case 'offline': {
      const offline = live.connected === 0;
      if (offline && claimed && live.presence_changed_at !== null && live.presence_changed_at + thresholds.offlineSeconds <= now) {
        await raiseAlarm(ctx, uow, lockId, kind, now, ` (more than ${thresholds.offlineSeconds} s)`);
      } else if (!offline) await endAlarm(ctx, uow, lockId, kind, now);
      return;
    }
    default:
      return;
  }
}
