import { sql } from 'kysely';
import type { Flag } from '../accounts/tables.js';
import { appendedAlone, appendSlots, auditAppendCall, recordAudit, type AppendedRow, type AppendSlots, type AuditInput } from '../audit/record.js';
import type { AuditType } from '../audit/types.js';
import type { AppContext } from '../context.js';
import { inGroupCommit } from '../db/group-commit.js';
import type { UnitOfWork } from '../db/transaction.js';
import { inTransaction } from '../db/transaction.js';
import { prepareQuery } from '../db/prepared.js';
import { isMoveOvertaken } from './report-order.js';
import { clearPendingMarker, flag, OVERTAKEN_WITHIN_SECONDS, readLockedForUpdate, storeLocked, storeLockedUpdate, storeMarkerLate, storePendingMarker, takeLateMarker, type PendingMarker } from './state.js';

/**
 * The life of a lock/unlock command on its lock row, decided here (decisions §4) and, for a state
 * report on PostgreSQL, a second time in migration 0250's report_locked (PL/pgSQL: reportLocked's
 * decisions, see reportLockedAlone). Keep the two in step: test/lock-link/report-decisions.test.ts
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
 * PostgreSQL: the store and the audit entry as one statement, committed alone (issue 33 point 3:
 * BEGIN, store, append, COMMIT → one round trip). The store is a WITH whose row count is an
 * argument of the append (migration 0230), so it runs first and takes the lock row's lock before
 * the append takes the tree head's, the order of every audit writer; the statement is atomic as
 * the transaction was. With `movedAt` the read before the store keeps the transaction.
 */
const storeLockedAudited = prepareQuery<AppendSlots & { storeLockId: string; locked: Flag; at: number }, AppendedRow>((db, slot) =>
  db
    .with('stored', (qc) => storeLockedUpdate(qc, { lockId: slot.storeLockId, locked: slot.locked, at: slot.at }).returning('id'))
    .selectFrom(auditAppendCall(slot, sql`(select count(*) from stored)`).as('appended'))
    .selectAll());

async function confirmInOneStatement(ctx: AppContext, command: PendingCommand, audit: AuditInput): Promise<void> {
  const { slots, fields } = appendSlots(ctx, audit);
  const row = await storeLockedAudited.takeFirst(ctx.db.kysely, ctx.db.dialect, { ...slots, storeLockId: command.lockId, locked: flag(command.targetLocked), at: ctx.now() });
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
 * statement, by migration 0250's report_locked: keep in step): stored; a change from a known value is
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

type ReportLockedRow = AppendedRow & { outcome: 'overtaken' | 'unknown' | 'fallback' | 'unchanged' | 'stored' | 'audited' };

// Migration 0250's report_locked: the whole of a state report that changes `locked` alone, in one statement.
const reportLockedCall = prepareQuery<AppendSlots & { locked: Flag; now: number; reportTs: number | null; overtakenWithin: number; battery: number | null;
  jammed: Flag | null; tamper: Flag | null; doorOpen: Flag | null; lockdown: string | null; byOperation: boolean }, ReportLockedRow>((db, slot) =>
  db.selectFrom(sql<ReportLockedRow>`report_locked(${slot.lockId}, cast(${slot.locked} as integer), cast(${slot.now} as double precision),
    cast(${slot.reportTs} as double precision), cast(${slot.overtakenWithin} as double precision), cast(${slot.battery} as integer),
    cast(${slot.jammed} as integer), cast(${slot.tamper} as integer), cast(${slot.doorOpen} as integer), cast(${slot.lockdown} as text),
    cast(${slot.byOperation} as boolean), ${slot.id}, cast(${slot.timestamp} as double precision), ${slot.type}, ${slot.message},
    cast(${slot.version} as integer), cast(${slot.preimage} as text[]), cast(${slot.outbox} as boolean))`.as('reported')).selectAll());

const flagOrNull = (value: boolean | undefined): Flag | null => (value === undefined ? null : flag(value));

/**
 * PostgreSQL (issue 33 point 3, fourth step): a state report recorded by one statement in
 * autocommit, when all it changes is `locked` (migration 0250 makes reportLocked's decisions for
 * it: stored; audited without a user unless the row's value was unknown, a live marker asked for
 * it, or `byOperation`). `reportTs`: the report's time to claim (reports spread over instances),
 * else null. Answers the types audited, or undefined when the report needs the transaction of
 * src/lock-link/reports.ts (a health value, door or lockdown the row does not hold, a late
 * marker): nothing is written then, not even the report's time, which the transaction claims.
 */
export async function reportLockedAlone(ctx: AppContext, lockId: string, locked: boolean, beside: ReportedBeside, byOperation: boolean, reportTs: number | null): Promise<AuditType[] | undefined> {
  const { slots, fields } = appendSlots(ctx, { lockId, type: locked ? 'DOOR_LOCK' : 'DOOR_UNLOCK', actorUserId: null });
  const row = await reportLockedCall.takeFirst(ctx.db.kysely, ctx.db.dialect, {
    ...slots, locked: flag(locked), now: ctx.now(), reportTs, overtakenWithin: OVERTAKEN_WITHIN_SECONDS, battery: beside.battery ?? null,
    jammed: flagOrNull(beside.jammed), tamper: flagOrNull(beside.tamper), doorOpen: flagOrNull(beside.doorOpen),
    lockdown: beside.lockdown === undefined ? null : (beside.lockdown?.toLowerCase() ?? ''), byOperation,
  });
  if (row === undefined) throw new Error('report_locked answered no row');
  if (row.outcome === 'fallback') return undefined;
  if (row.outcome !== 'audited') return [];
  await appendedAlone(ctx, fields, row);
  return [fields.type];
}
