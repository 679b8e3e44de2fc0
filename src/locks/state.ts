import type { Updateable } from 'kysely';
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
