import type { Updateable } from 'kysely';
import type { DialectName } from '../db/database.js';
import { prepareQuery } from '../db/prepared.js';
import type { Executor } from '../db/transaction.js';
import type { LocksTable } from './tables.js';

export interface LockStateChange {
  /** From `locks/{id}/online`. */
  connected?: boolean;
  /** From `locks/{id}/state`; null = unknown again. */
  locked?: boolean | null;
  doorOpen?: boolean | null;
  /** Unix seconds of the last lock/unlock (shown as lastOperation). */
  lastOperation?: number;
}

const flag = (value: boolean | null): 0 | 1 | null => (value === null ? null : value ? 1 : 0);

/**
 * Stores what the lock link learned about a lock (presence, state reports, operations) so lock
 * reads can show it. Unknown lock ids change nothing. Returns true when a lock was updated.
 */
export async function updateLockState(db: Executor, lockId: string, change: LockStateChange, now: number): Promise<boolean> {
  const set: Updateable<LocksTable> = { updated: now };
  if (change.connected !== undefined) set.connected = change.connected ? 1 : 0;
  if (change.locked !== undefined) set.locked = flag(change.locked);
  if (change.doorOpen !== undefined) set.door_open = flag(change.doorOpen);
  if (change.lastOperation !== undefined) set.last_operation = change.lastOperation;
  const result = await db.updateTable('locks').set(set).where('id', '=', lockId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

// The two lock-row writes of every lock/unlock, prepared (src/db/prepared.ts).
const markPending = prepareQuery<{ lockId: string; actorUserId: string; target: 0 | 1; until: number }>((db, slot) =>
  db.updateTable('locks').set({ pending_actor_user_id: slot.actorUserId, pending_target_locked: slot.target, pending_until: slot.until }).where('id', '=', slot.lockId));

const storeLockedIfChanged = prepareQuery<{ lockId: string; locked: 0 | 1; at: number }>((db, slot) =>
  db
    .updateTable('locks')
    .set({ locked: slot.locked, last_operation: slot.at, updated: slot.at })
    .where('id', '=', slot.lockId)
    .where((eb) => eb.or([eb('locked', 'is', null), eb('locked', '!=', slot.locked)])));

/**
 * Marks the lock row as waiting for `actorUserId`'s command to reach `targetLocked` until
 * `until` (Unix seconds), so that the state report the command causes is attributed to them.
 */
export async function markCommandPending(db: Executor, dialect: DialectName, pending: { lockId: string; actorUserId: string; targetLocked: boolean; until: number }): Promise<void> {
  await markPending.execute(db, dialect, { lockId: pending.lockId, actorUserId: pending.actorUserId, target: pending.targetLocked ? 1 : 0, until: pending.until });
}

/** Stores `locked` (and `at` as the last operation) unless the row already says so; true when it changed. */
export async function storeLocked(db: Executor, dialect: DialectName, lockId: string, locked: boolean, at: number): Promise<boolean> {
  return (await storeLockedIfChanged.affectedRows(db, dialect, { lockId, locked: locked ? 1 : 0, at })) === 1;
}

/**
 * Withdraws the marker of a command that did not succeed (no reply, offline, refused), if it is
 * still this one's: a lock that acts on it late then reports a change nobody is waiting for,
 * which is audited (without a user) rather than silently taken for the confirmed command's.
 */
export async function clearCommandPending(db: Executor, pending: { lockId: string; actorUserId: string; targetLocked: boolean; until: number }): Promise<void> {
  await db
    .updateTable('locks')
    .set({ pending_actor_user_id: null, pending_target_locked: null, pending_until: null })
    .where('id', '=', pending.lockId)
    .where('pending_actor_user_id', '=', pending.actorUserId)
    .where('pending_target_locked', '=', pending.targetLocked ? 1 : 0)
    // The marker this command wrote, not that of the user's next command, sent meanwhile.
    .where('pending_until', '=', pending.until)
    .execute();
}
