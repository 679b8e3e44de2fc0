import { sql, type ExpressionBuilder, type Insertable, type Selectable } from 'kysely';
import type { Database } from '../db/database.js';
import { prepareQuery } from '../db/prepared.js';
import type { DatabaseSchema } from '../db/schema.js';
import type { Executor } from '../db/transaction.js';
import type { QueuedOperationsTable } from './tables.js';

/**
 * The queries of the operation queue (migration 0080). Delivery is claimed row by row with a
 * conditional UPDATE, so that however many instances try, each row is taken by one, and a lock's
 * rows one at a time in their order (see claimNext).
 */

export type QueuedState = 'QUEUED' | 'DELIVERING' | 'DELIVERED' | 'REFUSED' | 'EXPIRED';
export type QueuedRow = Selectable<QueuedOperationsTable>;

export async function insertQueued(db: Executor, row: Insertable<QueuedOperationsTable>): Promise<void> {
  await db.insertInto('queued_operations').values(row).execute();
}

export function findQueued(db: Executor, id: string): Promise<QueuedRow | undefined> {
  return db.selectFrom('queued_operations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An operation still to deliver: waiting, or being delivered (under a lease that may run out). */
const OPEN_STATES: QueuedState[] = ['QUEUED', 'DELIVERING'];

// Prepared: asked for every lock coming online (a fleet of them after a restart), which seldom has any.
const anyOpenQuery = prepareQuery<{ lockId: string }, { seq: number }>((db, slot) =>
  db.selectFrom('queued_operations').select('seq').where('lock_id', '=', slot.lockId).where('state', 'in', OPEN_STATES).limit(sql.lit(1)));

/** Whether the lock has an operation waiting or being delivered, as committed: none → no claim to try. */
export async function hasOpenQueued(database: Database, lockId: string): Promise<boolean> {
  return (await anyOpenQuery.takeFirstNow(database, { lockId })) !== undefined;
}

/**
 * Claims the oldest operation of `lockId` still to deliver (QUEUED, or DELIVERING under a lease
 * that ran out: its instance stopped) until `leaseUntil`, unless another instance holds a live
 * lease on one of the lock's operations (it is delivering them in order). The UPDATE checks the
 * row's state again, so of two instances that picked the same row one claims it and the other
 * gets nothing; on PostgreSQL the second waits for the first's row lock, then sees the new state.
 */
export async function claimNext(db: Executor, lockId: string, now: number, leaseUntil: number): Promise<QueuedRow | undefined> {
  const next = await db.selectFrom('queued_operations').select('seq')
    .where('lock_id', '=', lockId)
    .where((eb) => eb.or([eb('state', '=', 'QUEUED'), eb.and([eb('state', '=', 'DELIVERING'), eb('lease_until', '<', now)])]))
    .orderBy('seq').limit(1).executeTakeFirst();
  if (next === undefined) return undefined;
  const claimed = await db.updateTable('queued_operations')
    .set({ state: 'DELIVERING', lease_until: leaseUntil })
    .where('seq', '=', next.seq)
    .where((eb) => eb.or([eb('state', '=', 'QUEUED'), eb.and([eb('state', '=', 'DELIVERING'), eb('lease_until', '<', now)])]))
    .where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('queued_operations as held').select(sql.lit(1).as('one'))
        .where('held.lock_id', '=', lockId).where('held.state', '=', 'DELIVERING').where('held.lease_until', '>=', now).where('held.seq', '<>', next.seq),
    )))
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return undefined;
  return db.selectFrom('queued_operations').selectAll().where('seq', '=', next.seq).executeTakeFirst();
}

/**
 * A claim: the row as claimNext or claimExpired answered it. Its lease is the claim's mark: an
 * instance that stalled past its lease and was taken over (claimNext sets a new lease) no longer
 * matches, so it cannot put back or finish what the other instance now holds.
 */
export type QueuedClaim = Pick<QueuedRow, 'seq' | 'lease_until'>;

const holding = (claim: QueuedClaim) => (eb: ExpressionBuilder<DatabaseSchema, 'queued_operations'>) =>
  eb.and([eb('seq', '=', claim.seq), eb('state', '=', 'DELIVERING'), claim.lease_until === null ? eb('lease_until', 'is', null) : eb('lease_until', '=', claim.lease_until)]);

/** Puts a claimed operation back in the queue (the lock went offline, or a fault): delivered on a later pass. False when the claim was lost. */
export async function releaseQueued(db: Executor, claim: QueuedClaim): Promise<boolean> {
  const result = await db.updateTable('queued_operations').set({ state: 'QUEUED', lease_until: null }).where(holding(claim)).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The outcome of a claimed operation. False when its claim was lost meanwhile (another instance took it over, or finished it). */
export async function finishQueued(db: Executor, claim: QueuedClaim, outcome: { state: 'DELIVERED' | 'REFUSED' | 'EXPIRED'; now: number; error?: { error: string; message: string } }): Promise<boolean> {
  const result = await db.updateTable('queued_operations')
    .set({ state: outcome.state, finished_at: outcome.now, lease_until: null, error: outcome.error?.error ?? null, error_message: outcome.error?.message ?? null })
    .where(holding(claim))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Locks with operations waiting (the sweep's work list), at most `limit`. */
export async function locksWithQueued(db: Executor, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('queued_operations').select('lock_id').distinct()
    .where('state', 'in', OPEN_STATES).limit(limit).execute();
  return rows.map((row) => row.lock_id);
}

/** Locks with an operation waiting past its expiry (dropped by the sweep whether or not the lock comes back). */
export async function locksWithExpired(db: Executor, now: number, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('queued_operations').select('lock_id').distinct()
    .where('state', '=', 'QUEUED').where('expires_at', '<=', now).limit(limit).execute();
  return rows.map((row) => row.lock_id);
}

/** Claims one QUEUED operation of `lockId` whose expiry has passed, for dropping it. */
export async function claimExpired(db: Executor, lockId: string, now: number, leaseUntil: number): Promise<QueuedRow | undefined> {
  const next = await db.selectFrom('queued_operations').select('seq')
    .where('lock_id', '=', lockId).where('state', '=', 'QUEUED').where('expires_at', '<=', now)
    .orderBy('seq').limit(1).executeTakeFirst();
  if (next === undefined) return undefined;
  const claimed = await db.updateTable('queued_operations').set({ state: 'DELIVERING', lease_until: leaseUntil })
    .where('seq', '=', next.seq).where('state', '=', 'QUEUED').executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return undefined;
  return db.selectFrom('queued_operations').selectAll().where('seq', '=', next.seq).executeTakeFirst();
}
