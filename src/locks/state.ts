import type { Database, DialectName } from '../db/database.js';
import { prepareQuery } from '../db/prepared.js';
import type { Executor } from '../db/transaction.js';
import type { Flag } from '../accounts/tables.js';

/**
 * Every write to a lock's live columns: presence (`connected`), `locked`, `door_open`,
 * `last_operation` and the pending-command marker (`pending_*`). What the lock link learns and
 * what a command changes are written here, except on PostgreSQL a state report that moves the
 * bolt alone: migration 0270's report_locked_decision writes `locked`, `last_operation`, `updated` and
 * `report_ts` itself (as lockedColumns and claimReportTime do here). The decisions about a
 * command's marker are in command-life.ts. Each write is conditional where several instances (or
 * a replayed retained report) may make the same change, so only one of them sees it change.
 */

/** The marker a lock/unlock command leaves on its lock row (see command-life.ts). */
export interface PendingMarker {
  lockId: string;
  actorUserId: string;
  targetLocked: boolean;
  /** Unix seconds after which the marker no longer counts. */
  until: number;
  /** The command's id on the wire (what the lock's reply names). */
  commandId: string;
}

export const flag = (value: boolean): Flag => (value ? 1 : 0);

/** The marker's columns (also set by src/operations/replay.ts's one-statement begin on PostgreSQL). */
export function pendingMarkerColumns(slot: { actorUserId: string; target: Flag; until: number; commandId: string }) {
  return { pending_actor_user_id: slot.actorUserId, pending_target_locked: slot.target, pending_until: slot.until, pending_command_id: slot.commandId, pending_late: 0 as const };
}

// The two lock-row writes of every lock/unlock, prepared (src/db/prepared.ts).
const markPending = prepareQuery<{ lockId: string; actorUserId: string; target: Flag; until: number; commandId: string }>((db, slot) =>
  db.updateTable('locks').set(pendingMarkerColumns(slot)).where('id', '=', slot.lockId));

/** What storing a reported `locked` writes (storeLockedIfChanged, and readLockedStoring's one statement on PostgreSQL). */
const lockedColumns = (slot: { locked: Flag; at: number }) => ({ locked: slot.locked, last_operation: slot.at, updated: slot.at });

/** Stores `locked` where the row says otherwise (storeLocked; on PostgreSQL a confirmation's is migration 0270's lock_writes). */
const storeLockedIfChanged = prepareQuery<{ lockId: string; locked: Flag; at: number }>((db, slot) =>
  db
    .updateTable('locks')
    .set(lockedColumns(slot))
    .where('id', '=', slot.lockId)
    .where((eb) => eb.or([eb('locked', 'is', null), eb('locked', '!=', slot.locked)])));

/**
 * Sets `connected` on each lock whose row does not already say so, in one statement per value;
 * answers the ids this call changed. On PostgreSQL the caller has locked the rows (lockPresenceRows).
 */
export async function storePresences(db: Executor, changes: ReadonlyArray<{ lockId: string; online: boolean }>, now: number): Promise<Set<string>> {
  const changed = new Set<string>();
  for (const online of [true, false]) {
    const ids = changes.filter((change) => change.online === online).map((change) => change.lockId);
    if (ids.length === 0) continue;
    let update = db
      .updateTable('locks')
      .set({ connected: flag(online), presence_changed_at: now, updated: now })
      .where('id', 'in', ids)
      .where('connected', '=', flag(!online));
    // A decommissioned lock is not brought back online by an `online` an instance heard before it was told (its cut-off stored it offline).
    if (online) update = update.where('decommissioned_at', 'is', null);
    const rows = await update.returning('id').execute();
    for (const row of rows) changed.add(row.id);
  }
  return changed;
}

/**
 * PostgreSQL: locks the rows of `ids` in id order, for the presence writes that follow in the
 * transaction; so two batches of the same locks (two instances, or a batch beside the disconnect
 * sweep) cannot deadlock. SQLite runs one write transaction at a time.
 */
export async function lockPresenceRows(db: Executor, dialect: DialectName, ids: readonly string[]): Promise<void> {
  if (dialect === 'postgres' && ids.length > 0) await db.selectFrom('locks').select('id').where('id', 'in', [...ids]).orderBy('id').forUpdate().execute();
}

/**
 * Stores every lock stored as connected as not, at `now`, each marked as owing its
 * DEVICE_DISCONNECTED entry (migration 0220); one statement. Answers how many.
 */
export async function markAllDisconnected(db: Executor, now: number): Promise<number> {
  const result = await db.updateTable('locks').set({ connected: 0, presence_changed_at: now, updated: now, disconnect_unaudited: 1 }).where('connected', '=', 1).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Up to `limit` ids of locks owing a disconnect entry, in id order. */
export async function unauditedDisconnectIds(db: Executor, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('locks').select('id').where('disconnect_unaudited', '=', 1).orderBy('id').limit(limit).execute();
  return rows.map((row) => row.id);
}

/**
 * Clears the mark of those of `ids` that owe a disconnect entry and answers them, in id order, with
 * the time the start stored them disconnected (before a returning lock's presence overwrites it):
 * the caller audits each at that time, in its transaction (after lockPresenceRows on PostgreSQL, so
 * of two claimers one gets each lock).
 */
export async function claimUnauditedDisconnects(db: Executor, ids: readonly string[]): Promise<Array<{ lockId: string; at: number | null }>> {
  if (ids.length === 0) return [];
  const rows = await db.updateTable('locks').set({ disconnect_unaudited: 0 }).where('id', 'in', [...ids]).where('disconnect_unaudited', '=', 1).returning(['id', 'presence_changed_at']).execute();
  return rows.map((row) => ({ lockId: row.id, at: row.presence_changed_at })).sort((a, b) => (a.lockId < b.lockId ? -1 : 1));
}

/** How far back (seconds of the lock's clock) a report counts as overtaken rather than as the lock's clock set back (also report_locked_decision's, through command-life.ts). */
export const OVERTAKEN_WITHIN_SECONDS = 60;

/**
 * Whether a report the lock timed `ts` is newer than every state and door event recorded, storing
 * it as the newest when it is. Instances sharing a broker each record some of a lock's reports, so
 * one may finish before an earlier one (issue 33 point 2): that earlier one then changes nothing.
 * A report more than a minute older is taken anyway: the lock's clock was set back. Its UPDATE
 * takes the lock's row, so the lock's reports are recorded one at a time across instances.
 */
export async function claimReportTime(db: Executor, lockId: string, ts: number): Promise<boolean> {
  const result = await db
    .updateTable('locks')
    .set({ report_ts: ts })
    .where('id', '=', lockId)
    .where((eb) => eb.or([eb('report_ts', 'is', null), eb('report_ts', '<=', ts), eb('report_ts', '>', ts + OVERTAKEN_WITHIN_SECONDS)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Whether a state or door event no older than `ts` (by the lock's clock, within a minute:
 * claimReportTime) is recorded already; nothing is claimed. A tie counts as overtaken: a move
 * (an operation report, a reply) goes before the state that shows it, which stores it anyway.
 */
export async function reportOvertaken(db: Executor, lockId: string, ts: number): Promise<boolean> {
  const row = await db.selectFrom('locks').select('report_ts').where('id', '=', lockId).executeTakeFirst();
  const newest = row?.report_ts ?? null;
  return newest !== null && newest >= ts && newest <= ts + OVERTAKEN_WITHIN_SECONDS;
}

/** Sets `door_open` unless the row already says so; `changed` when this call did, `wasKnown` when it had a value before. */
export async function storeDoorOpen(db: Executor, lockId: string, open: boolean, now: number): Promise<{ changed: boolean; wasKnown: boolean }> {
  const before = await db.selectFrom('locks').select('door_open').where('id', '=', lockId).executeTakeFirst();
  if (!before) return { changed: false, wasKnown: false };
  const result = await db
    .updateTable('locks')
    .set({ door_open: flag(open), door_changed_at: now, updated: now })
    .where('id', '=', lockId)
    // A decommissioned lock's door is not heard (as readLockedForUpdate), by an instance not told yet either.
    .where('decommissioned_at', 'is', null)
    .where((eb) => eb.or([eb('door_open', 'is', null), eb('door_open', '!=', flag(open))]))
    .executeTakeFirst();
  return { changed: Number(result.numUpdatedRows) === 1, wasKnown: before.door_open !== null };
}

/** Stores `locked` (and `at` as the last operation) unless the row already says so; true when it changed. */
export async function storeLocked(db: Executor, dialect: DialectName, lockId: string, locked: boolean, at: number): Promise<boolean> {
  return (await storeLockedIfChanged.affectedRows(db, dialect, { lockId, locked: flag(locked), at })) === 1;
}

const LOCKED_FOR_UPDATE = ['locked', 'pending_actor_user_id', 'pending_target_locked', 'pending_until', 'pending_command_id', 'pending_late', 'battery', 'jammed', 'tamper'] as const;

/**
 * The lock's `locked`, pending marker and health before a state report changes them; undefined
 * for an unknown lock, and for a decommissioned one: what it reports is not recorded, even by an
 * instance that has not been told yet (src/lock-link/cut-off.ts: the bus message arrives after the
 * commit, or not at all). On PostgreSQL the row stays locked until the transaction ends, so a
 * second instance recording the same report waits and then sees it stored (the row as committed
 * then; a decommissioning committed meanwhile is seen too).
 */
export async function readLockedForUpdate(db: Executor, dialect: DialectName, lockId: string) {
  const query = db
    .selectFrom('locks')
    .select(LOCKED_FOR_UPDATE)
    .where('id', '=', lockId)
    .where('decommissioned_at', 'is', null);
  return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

type LockedForUpdate = NonNullable<Awaited<ReturnType<typeof readLockedForUpdate>>>;

// PostgreSQL: the row locked and read as it was, and `locked` stored where it differs, in one
// statement (issue 33 point 3: a state report's round trip fewer). The update joins the read, so
// it runs after it and sees the row as the read locked it; the read's values are those before it.
const readLockedStoringQuery = prepareQuery<{ lockId: string; locked: Flag; at: number }, LockedForUpdate & { stored: number | string }>((db, slot) =>
  db
    .with('old', (qc) => qc.selectFrom('locks').select(LOCKED_FOR_UPDATE).where('id', '=', slot.lockId).where('decommissioned_at', 'is', null).forUpdate())
    .with('stored', (qc) =>
      qc
        .updateTable('locks')
        .set(lockedColumns(slot))
        .from('old')
        .where('locks.id', '=', slot.lockId)
        .where((eb) => eb.or([eb('old.locked', 'is', null), eb('old.locked', '!=', slot.locked)]))
        .returning('locks.id'))
    .selectFrom('old')
    .selectAll('old')
    .select((eb) => eb.selectFrom('stored').select((inner) => inner.fn.countAll().as('n')).as('stored')));

/**
 * A state report's read of the row (readLockedForUpdate) and, on PostgreSQL, in the same
 * statement, its `locked` stored where it differs (`stored`: whether it was); on SQLite `stored`
 * is absent and the caller stores it (storeLocked). Undefined for an unknown lock, and for a
 * decommissioned one (as readLockedForUpdate).
 */
export async function readLockedStoring(db: Executor, dialect: DialectName, lockId: string, locked: boolean, at: number): Promise<(LockedForUpdate & { stored?: boolean }) | undefined> {
  if (dialect !== 'postgres') return readLockedForUpdate(db, dialect, lockId);
  const row = await readLockedStoringQuery.takeFirst(db, dialect, { lockId, locked: flag(locked), at });
  if (row === undefined) return undefined;
  const { stored, ...read } = row;
  return { ...read, stored: Number(stored) === 1 };
}

export async function storePendingMarker(db: Executor, dialect: DialectName, marker: PendingMarker): Promise<void> {
  await markPending.execute(db, dialect, { lockId: marker.lockId, actorUserId: marker.actorUserId, target: flag(marker.targetLocked), until: marker.until, commandId: marker.commandId });
}

/** Marks `marker` (if still the row's) as answered 504, live until `until`; true when it was. */
export async function storeMarkerLate(db: Executor, marker: PendingMarker, until: number): Promise<boolean> {
  const result = await db
    .updateTable('locks')
    .set({ pending_late: 1, pending_until: until })
    .where('id', '=', marker.lockId)
    .where('pending_command_id', '=', marker.commandId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Clears the marker of command `commandId` (if `onlyLate`, only when late); true when this call did (so exactly one caller audits it). */
export async function takeLateMarker(db: Executor, lockId: string, commandId: string, onlyLate = true): Promise<boolean> {
  let update = db
    .updateTable('locks')
    .set({ pending_actor_user_id: null, pending_target_locked: null, pending_until: null, pending_command_id: null, pending_late: null })
    .where('id', '=', lockId)
    .where('pending_command_id', '=', commandId);
  if (onlyLate) update = update.where('pending_late', '=', 1);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Clears the marker if it is still exactly `marker` (not a later command's, written meanwhile). */
export async function clearPendingMarker(db: Executor, marker: PendingMarker): Promise<void> {
  await db
    .updateTable('locks')
    .set({ pending_actor_user_id: null, pending_target_locked: null, pending_until: null, pending_command_id: null, pending_late: null })
    .where('id', '=', marker.lockId)
    .where('pending_command_id', '=', marker.commandId)
    .execute();
}

// Prepared, and written only when it differs: every lock says what it is each time it comes online,
// a fleet at once after a restart, and rewriting an unchanged row cost a write and a commit each.
const deviceIfChanged = prepareQuery<{ lockId: string; kind: string; capabilities: string; digitsMin: number | null; digitsMax: number | null }>((db, slot) =>
  db.updateTable('locks')
    .set({ device_kind: slot.kind, device_capabilities: slot.capabilities, code_digits_min: slot.digitsMin, code_digits_max: slot.digitsMax })
    .where('id', '=', slot.lockId)
    .where((eb) => eb.or([
      eb('device_kind', 'is distinct from', slot.kind),
      eb('device_capabilities', 'is distinct from', slot.capabilities),
      eb('code_digits_min', 'is distinct from', slot.digitsMin),
      eb('code_digits_max', 'is distinct from', slot.digitsMax),
    ])));

/** Stores what the lock says it is (protocol 1.2, 1.5) unless the row already says so (nothing is audited). */
export async function storeDevice(database: Database, lockId: string, kind: string, capabilities: readonly string[], codeDigits: { min: number; max: number } | null = null): Promise<void> {
  await deviceIfChanged.execute(database.kysely, database.dialect, { lockId, kind, capabilities: capabilities.join(','), digitsMin: codeDigits?.min ?? null, digitsMax: codeDigits?.max ?? null });
}

const directAccessIfChanged = prepareQuery<{ lockId: string; endpoints: string }>((db, slot) =>
  db.updateTable('locks').set({ direct_access_endpoints: slot.endpoints }).where('id', '=', slot.lockId).where('direct_access_endpoints', 'is distinct from', slot.endpoints));

/** Stores the LAN addresses the lock announces (protocol 1.3) unless the row already holds them (as storeDevice). */
export async function storeDirectAccess(database: Database, lockId: string, endpoints: readonly string[]): Promise<void> {
  await directAccessIfChanged.execute(database.kysely, database.dialect, { lockId, endpoints: JSON.stringify(endpoints) });
}

// Prepared: read for every state report (src/lock-link/reports.ts).
const reportedColumns = prepareQuery<{ lockId: string }, StoredHealth & { locked: Flag | null; door_open: Flag | null; reported_lockdown: string | null }>((db, slot) =>
  db.selectFrom('locks').select(['locked', 'battery', 'jammed', 'tamper', 'door_open', 'reported_lockdown']).where('id', '=', slot.lockId));

/** What a state report may change on the lock row, as committed now (no transaction, no row lock); undefined for an unknown lock. */
export function readReportedColumns(database: Database, lockId: string) {
  return reportedColumns.takeFirstNow(database, { lockId });
}

/** What the lock row says of the lock's health (null where the lock never said). */
export interface StoredHealth {
  battery: number | null;
  jammed: Flag | null;
  tamper: Flag | null;
}

/**
 * The battery, jam and tamper a state report carries (device protocol 1.2); what it omits is left
 * as it was. Given the row's values `before` (read in the same transaction, the row locked), only
 * what differs is written, nothing when nothing does. True when a value was written.
 */
export async function storeHealth(db: Executor, lockId: string, health: { battery?: number; jammed?: boolean; tamper?: boolean }, before?: StoredHealth): Promise<boolean> {
  const differs = <K extends keyof StoredHealth>(key: K, value: StoredHealth[K] | undefined) => value !== undefined && (before === undefined || before[key] !== value);
  const jammed = health.jammed === undefined ? undefined : flag(health.jammed);
  const tamper = health.tamper === undefined ? undefined : flag(health.tamper);
  const values = {
    ...(differs('battery', health.battery) ? { battery: health.battery } : {}),
    ...(differs('jammed', jammed) ? { jammed } : {}),
    ...(differs('tamper', tamper) ? { tamper } : {}),
  };
  if (Object.keys(values).length === 0) return false;
  await db.updateTable('locks').set(values).where('id', '=', lockId).execute();
  return true;
}

/**
 * The lockdown a state report says the lock enforces (device protocol 1.4): its id or '' for none.
 * Conditional, so only the report that changes it (on one instance) says so: what it was before
 * (null when the lock never said), or undefined when nothing changed.
 */
export async function storeReportedLockdown(db: Executor, lockId: string, lockdownId: string | null, now: number): Promise<{ before: string | null } | undefined> {
  const value = lockdownId?.toLowerCase() ?? '';
  const row = await db.selectFrom('locks').select('reported_lockdown').where('id', '=', lockId).executeTakeFirst();
  if (row === undefined || row.reported_lockdown === value) return undefined;
  const result = await db
    .updateTable('locks')
    .set({ reported_lockdown: value, reported_lockdown_at: now })
    .where('id', '=', lockId)
    .where((eb) => (row.reported_lockdown === null ? eb('reported_lockdown', 'is', null) : eb('reported_lockdown', '=', row.reported_lockdown)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1 ? { before: row.reported_lockdown } : undefined;
}
