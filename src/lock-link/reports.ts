import type { AuditType } from '../audit/types.js';
import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import { inTransaction, type UnitOfWork } from '../db/transaction.js';
import type { LockEvent, LockState } from '../link/payloads.js';
import { storeLocked } from '../locks/state.js';

/**
 * What the lock link reports, written to the locks table and the audit trail exactly once.
 *
 * Every instance sharing a broker sees every report, and the broker replays retained ones on each
 * (re)subscribe; so each change is a conditional UPDATE (`... where value differs`) and only the
 * transaction that actually changed the row audits it. On PostgreSQL the row lock taken by the
 * first UPDATE (or SELECT ... FOR UPDATE) makes a second instance's identical change match no row.
 */

type ReportContext = AppContext;

const flag = (value: boolean): 0 | 1 => (value ? 1 : 0);

function audit(ctx: ReportContext, uow: UnitOfWork, lockId: string, type: AuditType, details?: Record<string, unknown>): Promise<unknown> {
  return recordAudit(ctx, uow, { lockId, type, actorUserId: null, ...(details ? { details } : {}) });
}

/** DEVICE_CONNECTED / DEVICE_DISCONNECTED when the stored presence changes. Returns true when audited. */
export function recordPresence(ctx: ReportContext, lockId: string, online: boolean): Promise<boolean> {
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const result = await uow.db
      .updateTable('locks')
      .set({ connected: flag(online), updated: ctx.now() })
      .where('id', '=', lockId)
      .where('connected', '=', flag(!online))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await audit(ctx, uow, lockId, online ? 'DEVICE_CONNECTED' : 'DEVICE_DISCONNECTED');
    return true;
  });
}

/** Conditionally sets door_open; true when this call changed it (from a known or unknown value). */
async function changeDoor(uow: UnitOfWork, lockId: string, open: boolean, now: number): Promise<{ changed: boolean; wasKnown: boolean }> {
  const before = await uow.db.selectFrom('locks').select('door_open').where('id', '=', lockId).executeTakeFirst();
  if (!before) return { changed: false, wasKnown: false };
  const result = await uow.db
    .updateTable('locks')
    .set({ door_open: flag(open), updated: now })
    .where('id', '=', lockId)
    .where((eb) => eb.or([eb('door_open', 'is', null), eb('door_open', '!=', flag(open))]))
    .executeTakeFirst();
  return { changed: Number(result.numUpdatedRows) === 1, wasKnown: before.door_open !== null };
}

/** DOOR_OPEN / DOOR_CLOSE from an event: audited when the stored door state changes. */
export function recordDoorEvent(ctx: ReportContext, lockId: string, event: LockEvent): Promise<boolean> {
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const { changed } = await changeDoor(uow, lockId, event.type === 'DOOR_OPEN', ctx.now());
    if (changed) await audit(ctx, uow, lockId, event.type);
    return changed;
  });
}

/**
 * A state report: stores `locked` and `doorOpen`. A change of `locked` from a known value is
 * audited as DOOR_LOCK / DOOR_UNLOCK without a user, unless a command the service sent asked for
 * exactly this state and is still pending (the execute path audits it with the user as actor).
 * A door change seen here first (its event lost or still queued) is audited here; the event then
 * changes nothing. The first report of a lock (value unknown before) is stored, not audited.
 */
export function recordState(ctx: ReportContext, lockId: string, state: LockState): Promise<AuditType[]> {
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const query = uow.db.selectFrom('locks').select(['locked', 'pending_target_locked', 'pending_until']).where('id', '=', lockId);
    const row = await (ctx.db.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    if (!row) return [];
    const now = ctx.now();
    const audited: AuditType[] = [];
    const changed = await storeLocked(uow.db, uow.dialect, lockId, state.locked, now);
    const pendingMatches = row.pending_target_locked === flag(state.locked) && row.pending_until !== null && row.pending_until > now;
    if (changed && row.locked !== null && !pendingMatches) {
      const type = state.locked ? 'DOOR_LOCK' : 'DOOR_UNLOCK';
      await audit(ctx, uow, lockId, type);
      audited.push(type);
    }
    if (state.doorOpen !== undefined) {
      const door = await changeDoor(uow, lockId, state.doorOpen, now);
      if (door.changed && door.wasKnown) {
        const type = state.doorOpen ? 'DOOR_OPEN' : 'DOOR_CLOSE';
        await audit(ctx, uow, lockId, type);
        audited.push(type);
      }
    }
    return audited;
  });
}
