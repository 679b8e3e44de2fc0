import { doorChanged, presenceChanged } from '../alarms/conditions.js';
import { deriveAlarms } from '../alarms/service.js';
import type { AuditType } from '../audit/types.js';
import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import { inTransaction, type UnitOfWork } from '../db/transaction.js';
import { knownCapabilities, type LockDevice, type LockEvent, type LockState } from '../device-protocol/payloads.js';
import { reportLocked, reportLockedAlone } from '../locks/command-life.js';
import { isLatestReport, reportsSpread } from '../locks/report-order.js';
import {
  claimUnauditedDisconnects, lockPresenceRows, readLockedStoring, readReportedColumns, storeDevice, storeDirectAccess, storeDoorOpen, storeHealth, storePresences,
  storeReportedLockdown, unauditedDisconnectIds,
} from '../locks/state.js';

/**
 * What the lock link reports, written to the locks table (through src/locks/state.ts) and the
 * audit trail exactly once.
 *
 * A report may be heard by several instances (without shared subscriptions every instance hears
 * every report) and again (the broker replays retained ones on each (re)subscribe); so each change
 * is a conditional UPDATE (`... where value differs`) and only the transaction that actually
 * changed the row audits it. On PostgreSQL the row lock taken by the first UPDATE (or SELECT ...
 * FOR UPDATE) makes a second instance's identical change match no row. With shared subscriptions
 * a lock's reports are spread over the instances: a state or door event older (by the lock's `ts`)
 * than one already recorded is not applied (claimReportTime).
 */

function audit(ctx: AppContext, uow: UnitOfWork, lockId: string, type: AuditType, at?: number | null): Promise<unknown> {
  return recordAudit(ctx, uow, { lockId, type, actorUserId: null, ...(at == null ? {} : { at }) });
}

/**
 * Whether the row, as committed, already says all that `state` says: then the report's
 * transaction would change and audit nothing, and is not run (issue 33 point 3: the state report
 * after an unlock usually repeats what the confirmation stored; BEGIN, a locking read and COMMIT
 * → one read). A change committed after this read is one the report would have found already
 * made had it run first. Not with shared subscriptions, where each report's time is claimed.
 * SQLite only: on PostgreSQL report_locked_decision's first read (migration 0270) decides the same.
 */
function holdsAlready(row: Awaited<ReturnType<typeof readReportedColumns>>, state: LockState): boolean {
  if (row === undefined || row.locked === null || row.locked !== (state.locked ? 1 : 0)) return false;
  const same = (stored: number | null, reported: boolean | number | undefined) =>
    reported === undefined || stored === (typeof reported === 'boolean' ? (reported ? 1 : 0) : reported);
  return same(row.battery, state.battery) && same(row.jammed, state.jammed) && same(row.tamper, state.tamper) && same(row.door_open, state.doorOpen)
    && (state.lockdown === undefined || row.reported_lockdown === (state.lockdown?.toLowerCase() ?? ''));
}

/**
 * DEVICE_CONNECTED / DEVICE_DISCONNECTED for each lock whose stored presence changes, all in one
 * transaction (one commit for a reconnect storm's worth of locks: ./presence-batch.ts); one change
 * per lock. `owed`: locks may still owe the DEVICE_DISCONNECTED of the service's start
 * (./disconnect-sweep.ts); one coming back has it written first. Answers the ids audited.
 */
export function recordPresences(ctx: AppContext, changes: ReadonlyArray<{ lockId: string; online: boolean }>, owed = false): Promise<Set<string>> {
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const now = ctx.now();
    // Every row first, then the audit entries: a batch never waits for a row while holding the audit's locks.
    await lockPresenceRows(uow.db, uow.dialect, changes.map((change) => change.lockId).sort());
    const returning = owed ? await claimUnauditedDisconnects(uow.db, changes.filter((change) => change.online).map((change) => change.lockId)) : [];
    const changed = await storePresences(uow.db, changes, now);
    for (const { lockId, at } of returning) await audit(ctx, uow, lockId, 'DEVICE_DISCONNECTED', at);
    for (const { lockId, online } of changes) {
      if (!changed.has(lockId)) continue;
      await audit(ctx, uow, lockId, online ? 'DEVICE_CONNECTED' : 'DEVICE_DISCONNECTED');
      await presenceChanged(ctx, uow, lockId, online, now);
    }
    return changed;
  });
}

/** Up to `limit` of the DEVICE_DISCONNECTED entries owed since the service's start (./disconnect-sweep.ts), in one transaction; answers how many. */
export function recordOwedDisconnects(ctx: AppContext, limit: number): Promise<number> {
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const ids = await unauditedDisconnectIds(uow.db, limit);
    await lockPresenceRows(uow.db, uow.dialect, ids);
    for (const { lockId, at } of await claimUnauditedDisconnects(uow.db, ids)) await audit(ctx, uow, lockId, 'DEVICE_DISCONNECTED', at);
    return ids.length;
  });
}

/** What the lock says it is (protocol 1.2): its kind and the capabilities this protocol knows; the digits its keypad takes (1.5). */
export async function recordDevice(ctx: AppContext, lockId: string, device: LockDevice): Promise<void> {
  await storeDevice(ctx.db, lockId, device.kind, knownCapabilities(device), device.codeDigits ?? null);
}

/** The LAN addresses the lock announces (protocol 1.3); members see them only while its owner allows it. */
export async function recordDirectAccess(ctx: AppContext, lockId: string, endpoints: string[]): Promise<void> {
  await storeDirectAccess(ctx.db, lockId, endpoints);
}

/** DOOR_OPEN / DOOR_CLOSE from an event: audited when the stored door state changes; the door's alarms follow (src/alarms). */
export function recordDoorEvent(ctx: AppContext, lockId: string, event: LockEvent): Promise<boolean> {
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const now = ctx.now();
    // Overtaken by a later report another instance recorded first: the door has moved since.
    if (!(await isLatestReport(ctx, uow, lockId, event.ts))) return false;
    const open = event.type === 'DOOR_OPEN';
    const { changed, wasKnown } = await storeDoorOpen(uow.db, lockId, open, now);
    if (!changed) return false;
    await audit(ctx, uow, lockId, event.type);
    await doorChanged(ctx, uow, lockId, { open, wasKnown, ...(event.forced === undefined ? {} : { forced: event.forced }) }, now);
    return true;
  });
}

/**
 * A state report: stores `locked` and `doorOpen`. `locked` is decided with the command it may
 * confirm (src/locks/command-life.ts). A door change seen here first (its event lost or still
 * queued) is audited here; the event then changes nothing. The first report of a lock (value
 * unknown before) is stored, not audited. Alarms follow the health it stores (src/alarms): only
 * when the health changes, since the report that stored the health before derived them from it in
 * its own transaction (issue 33 point 3: a battery, two alarm clears and a read fewer a report).
 */
export async function recordState(ctx: AppContext, lockId: string, state: LockState): Promise<AuditType[]> {
  const spread = reportsSpread(ctx);
  if (ctx.db.dialect === 'postgres') {
    // One statement, holdsAlready's read included, when the report changes nothing or `locked` alone (a relock, say); else the transaction below.
    const audited = await reportLockedAlone(ctx, lockId, state.locked, state, state.operation !== undefined, spread ? state.ts : null);
    if (audited !== undefined) return audited;
  } else if (!spread && holdsAlready(await readReportedColumns(ctx.db, lockId), state)) return [];
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const now = ctx.now();
    if (!(await isLatestReport(ctx, uow, lockId, state.ts))) return [];
    // On PostgreSQL `locked` is stored by the same statement, where it differs.
    const row = await readLockedStoring(uow.db, uow.dialect, lockId, state.locked, now);
    const lockAudit = await reportLocked(ctx, uow, lockId, state.locked, now, row, state.operation !== undefined);
    if (lockAudit === undefined || row === undefined) return [];
    if (await storeHealth(uow.db, lockId, state, row)) await deriveAlarms(ctx, uow, lockId, now);
    const audited: AuditType[] = lockAudit === null ? [] : [lockAudit];
    if (state.lockdown !== undefined && (await recordReportedLockdown(ctx, uow, lockId, state.lockdown, now))) audited.push('LOCKDOWN_REPORTED');
    if (state.doorOpen !== undefined) {
      const door = await storeDoorOpen(uow.db, lockId, state.doorOpen, now);
      if (door.changed && door.wasKnown) {
        const type = state.doorOpen ? 'DOOR_OPEN' : 'DOOR_CLOSE';
        await audit(ctx, uow, lockId, type);
        audited.push(type);
        await doorChanged(ctx, uow, lockId, { open: state.doorOpen, wasKnown: true }, now);
      }
    }
    return audited;
  });
}

/**
 * The lockdown the lock says it enforces (protocol 1.4): stored, and audited when it changes
 * (LOCKDOWN_REPORTED, on the live stream: the lock confirms a declaration or a lift), except a
 * lock's first report of none. Returns true when audited.
 */
async function recordReportedLockdown(ctx: AppContext, uow: UnitOfWork, lockId: string, lockdownId: string | null, now: number): Promise<boolean> {
  const changed = await storeReportedLockdown(uow.db, lockId, lockdownId, now);
  if (changed === undefined || (changed.before === null && lockdownId === null)) return false;
  const message = lockdownId === null ? 'the lock reports no lockdown in force' : 'the lock reports the lockdown in force';
  await recordAudit(ctx, uow, { lockId, type: 'LOCKDOWN_REPORTED', actorUserId: null, message, details: { lockdown: lockdownId?.toLowerCase() ?? changed.before } });
  return true;
}
