import type { Flag } from '../accounts/tables.js';
import { appendedAlone, appendSlots, recordAudit, type AuditInput } from '../audit/record.js';
import type { AuditType } from '../audit/types.js';
import type { AppContext } from '../context.js';
import { inGroupCommit } from '../db/group-commit.js';
import type { UnitOfWork } from '../db/transaction.js';
import { inTransaction } from '../db/transaction.js';
import { isMoveOvertaken } from './report-order.js';
import type { LockWrite, LockWriteRow } from './lock-writes.js';
import { clearPendingMarker, flag, OVERTAKEN_WITHIN_SECONDS, readLockedForUpdate, storeLocked, storeMarkerLate, storePendingMarker, takeLateMarker, type PendingMarker } from './state.js';

/**
 * The life of a lock/unlock command on its lock row, decided here (decisions §4) and, for a state
 * report on PostgreSQL, a second time in migration 0270's report_locked_decision (PL/pgSQL:
 * reportLocked's decisions, see reportLockedAlone). Keep the two in step: test/lock-link/report-decisions.test.ts
 * lists the cases and their outcomes and runs them on both engines.
 *
 * - begin: before the command goes out, the row is marked with its sender, target and deadline;
 * - confirm: the lock said yes: the state is stored (unless a report already did) and audited
 *   with the user as actor;
 * - abandon: offline or refused: the marker is withdrawn, if it is still this one's;
 * - late: no reply in time (504): the marker stays, marked late, for LATE_WINDOW_SECONDS, so a
 *   lock carrying the command out afterwards (its reply or its state report, whichever comes
 *   first, on any instance) is audited as the user's operation with the command's id;
 * - a state report (possibly late, possibly before the reply): stored, and audited without a user
 *   unless it is what a live marker asked for (the confirmation audits that one, or, for a late
 *   marker, the report itself on the marker's behalf).
 */

/** Seconds the pending marker outlives the reply timeout, for a state report that trails the reply. */
const PENDING_GRACE_SECONDS = 2;

/** Seconds after a 504 during which the lock carrying the command out is still the user's doing. */
export const LATE_WINDOW_SECONDS = 300;

export type PendingCommand = PendingMarker;

/** The marker of `actorUserId`'s command to make lock `lockId` `targetLocked`, sent at `now`. */
export function pendingCommand(lockId: string, actorUserId: string, targetLocked: boolean, now: number, replyTimeoutMs: number, commandId: string): PendingCommand {
  return { lockId, actorUserId, targetLocked, commandId, until: now + replyTimeoutMs / 1000 + PENDING_GRACE_SECONDS };
}

/** Begin: marks the row, in the caller's unit of work (the one that consumes the command's token). */
export function beginCommand(uow: Pick<UnitOfWork, 'db' | 'dialect'>, command: PendingCommand): Promise<void> {
  return storePendingMarker(uow.db, uow.dialect, command);
}

/**
 * Confirm: stores the confirmed state (only a change is stored) and records `audit` with its actor,
 * in one commit. `movedAt`: the lock's time of the state its reply carried; a later state another
 * instance recorded first (the relock after the unlock, say) is not overwritten by it.
 */
export function confirmCommand(ctx: AppContext, command: PendingCommand, audit: AuditInput, movedAt?: number): Promise<void> {
  if (ctx.db.dialect === 'postgres' && movedAt === undefined) return confirmInOneStatement(ctx, command, audit);
  return inGroupCommit(ctx.db, ctx.logger, async (uow) => {
    if (movedAt === undefined || !(await isMoveOvertaken(ctx, uow, command.lockId, movedAt))) await storeLocked(uow.db, uow.dialect, command.lockId, command.targetLocked, ctx.now());
    await recordAudit(ctx, uow, audit);
  });
}

/**
 * PostgreSQL: the store and the audit entry as one item of a batch of lock writes (lock-writes.ts:
 * one statement and one commit shared with the unlocks and reports of the same moment). The
 * store is made before the append takes the tree head's lock, the order of every audit writer;
 * the statement is atomic as the transaction was. With `movedAt` the read before the store keeps
 * the transaction. The entry is the command's lock's (`audit.lockId`).
 */
async function confirmInOneStatement(ctx: AppContext, command: PendingCommand, audit: AuditInput): Promise<void> {
  if (audit.lockId !== command.lockId) throw new Error('a confirmation audits its own lock');
  const { slots, fields } = appendSlots(ctx, audit);
  const row = await writeLock(ctx, { kind: 'confirm', locked: flag(command.targetLocked), storedAt: ctx.now(), entry: slots });
  await appendedAlone(ctx, fields, row);
}

/**
 * Abandon: withdraws the marker if it is still this command's, so a lock acting on it late
 * reports a change nobody waits for, audited without a user. A failure is logged: the command's
 * own error is what the caller answers.
 */
export async function abandonCommand(ctx: Pick<AppContext, 'db' | 'logger'>, command: PendingCommand): Promise<void> {
  await clearPendingMarker(ctx.db.kysely, command).catch((err: unknown) => ctx.logger.error({ err, lockId: command.lockId }, 'could not clear a pending command'));
}

/** Late: the request answered 504; the marker stays (marked late) in case the lock acts on it after all. */
export async function markCommandLate(ctx: Pick<AppContext, 'db' | 'logger' | 'now'>, command: PendingCommand): Promise<void> {
  await storeMarkerLate(ctx.db.kysely, command, ctx.now() + LATE_WINDOW_SECONDS)
    .catch((err: unknown) => ctx.logger.error({ err, lockId: command.lockId }, 'could not mark a command late'));
}

function lateAudit(lockId: string, locked: boolean, actorUserId: string | null, commandId: string | null): AuditInput {
  return { lockId, type: locked ? 'DOOR_LOCK' : 'DOOR_UNLOCK', actorUserId, details: { commandId, late: true } };
}

/**
 * A reply `ok` for a command nobody waits for any more: when it is the row's late command, its
 * state is stored and audited with the command's user. `timedOutHere`: the command timed out on
 * this instance, so it is late even if its marker is not marked so yet (the reply overtook the
 * 504's bookkeeping). Returns the type audited, or null.
 */
export function confirmLateCommand(ctx: AppContext, lockId: string, commandId: string, timedOutHere = false): Promise<AuditType | null> {
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const row = await readLockedForUpdate(uow.db, uow.dialect, lockId);
    if (!row || row.pending_command_id !== commandId || row.pending_target_locked === null) return null;
    if (row.pending_late !== 1 && !timedOutHere) return null;
    if (!(await takeLateMarker(uow.db, lockId, commandId, !timedOutHere))) return null;
    const locked = row.pending_target_locked === 1;
    await storeLocked(uow.db, uow.dialect, lockId, locked, ctx.now());
    const audit = lateAudit(lockId, locked, row.pending_actor_user_id, commandId);
    await recordAudit(ctx, uow, audit);
    return audit.type;
  });
}

/**
 * The lock row as a state report reads it, locked (readLockedForUpdate); undefined for an unknown
 * lock. `stored`: the read stored the report's `locked` already where it differed (readLockedStoring).
 */
export type ReportedLockRow = (NonNullable<Awaited<ReturnType<typeof readLockedForUpdate>>> & { stored?: boolean }) | undefined;

/**
 * A state report's `locked`, in the report's unit of work (made again, for PostgreSQL's one
 * statement, by migration 0270's report_locked_decision: keep in step): stored; a change from a known value is
 * audited as DOOR_LOCK / DOOR_UNLOCK without a user, unless a live marker asked for exactly this
 * state, or the move is an operation the lock reports (`byOperation`, protocol 1.7: that report
 * audits it, before or after this one). `read`: the row as the report read it already in this
 * unit, `locked` perhaps stored with it (else read here). Returns the type audited (or null); undefined for an unknown lock.
 */
export async function reportLocked(ctx: AppContext, uow: UnitOfWork, lockId: string, locked: boolean, now: number, read?: ReportedLockRow, byOperation = false): Promise<AuditType | null | undefined> {
  const row: ReportedLockRow = read ?? (await readLockedForUpdate(uow.db, uow.dialect, lockId));
  if (!row) return undefined;
  // The row is this unit's (locked on PostgreSQL, SQLite's one writer): a report of the state it holds writes nothing.
  const changed = row.locked !== (locked ? 1 : 0) && (row.stored ?? (await storeLocked(uow.db, uow.dialect, lockId, locked, now)));
  if (!changed || row.locked === null || byOperation) return null;
  if (markerAwaits(row, locked, now)) {
    // In flight: its confirmation audits it. Late: audited here, on the marker's behalf, once.
    if (row.pending_late !== 1 || row.pending_command_id === null) return null;
    if (!(await takeLateMarker(uow.db, lockId, row.pending_command_id))) return null;
    const audit = lateAudit(lockId, locked, row.pending_actor_user_id, row.pending_command_id);
    await recordAudit(ctx, uow, audit);
    return audit.type;
  }
  const type = locked ? 'DOOR_LOCK' : 'DOOR_UNLOCK';
  await recordAudit(ctx, uow, { lockId, type, actorUserId: null });
  return type;
}

/** Whether the row's marker, still live at `now`, asked for `locked`. */
function markerAwaits(row: { pending_target_locked: 0 | 1 | null; pending_until: number | null }, locked: boolean, now: number): boolean {
  return row.pending_target_locked === (locked ? 1 : 0) && row.pending_until !== null && row.pending_until > now;
}

/** What a state report says beside `locked` (undefined: it does not say), as reportLockedAlone compares it with the row. */
export interface ReportedBeside {
  battery?: number;
  jammed?: boolean;
  tamper?: boolean;
  doorOpen?: boolean;
  /** The lockdown it enforces, null for none. */
  lockdown?: string | null;
}

const flagOrNull = (value: boolean | undefined): Flag | null => (value === undefined ? null : flag(value));

/**
 * PostgreSQL (issue 33 point 3, fourth and fifth steps): a state report recorded as an item of
 * the instance's batch of lock writes (lock-writes.ts: one statement and commit with the writes of
 * the same moment), when all it changes is `locked` (migration 0270's report_locked_decision makes
 * reportLocked's decisions for it: stored; audited without a user unless the row's value was unknown, a live marker asked for
 * it, or `byOperation`). `reportTs`: the report's time to claim (reports spread over instances),
 * else null. Answers the types audited, or undefined when the report needs the transaction of
 * src/lock-link/reports.ts (a health value, door or lockdown the row does not hold, a late
 * marker): nothing is written then, not even the report's time, which the transaction claims.
 */
export async function reportLockedAlone(ctx: AppContext, lockId: string, locked: boolean, beside: ReportedBeside, byOperation: boolean, reportTs: number | null): Promise<AuditType[] | undefined> {
  const { slots, fields } = appendSlots(ctx, { lockId, type: locked ? 'DOOR_LOCK' : 'DOOR_UNLOCK', actorUserId: null });
  const row = await writeLock(ctx, {
    kind: 'report', entry: slots, locked: flag(locked), now: ctx.now(), reportTs, overtakenWithin: OVERTAKEN_WITHIN_SECONDS, battery: beside.battery ?? null,
    jammed: flagOrNull(beside.jammed), tamper: flagOrNull(beside.tamper), doorOpen: flagOrNull(beside.doorOpen),
    lockdown: beside.lockdown === undefined ? null : (beside.lockdown?.toLowerCase() ?? ''), byOperation,
  });
  if (row.outcome === 'fallback') return undefined;
  if (row.outcome !== 'audited') return [];
  await appendedAlone(ctx, fields, row);
  return [fields.type];
}

/** A write of the unlock path on PostgreSQL, in the instance's batches (lock-writes.ts). */
function writeLock(ctx: Pick<AppContext, 'lockWrites'>, write: LockWrite): Promise<LockWriteRow> {
  if (ctx.lockWrites === null) throw new Error('lock writes are batched on PostgreSQL only');
  return ctx.lockWrites.write(write);
}
