import type { Insertable, Selectable } from 'kysely';
import type { MemberRole, TimeRequirement } from '../access/types.js';
import type { Database, DialectName } from '../db/database.js';
import { prepareQuery } from '../db/prepared.js';
import type { Executor } from '../db/transaction.js';
import { readSchedule } from './json.js';
import type { LockMembersTable, LocksTable } from './tables.js';

export type LockRow = Selectable<LocksTable>;

/** One user's enrolment on a lock, with their own preferences for it. */
export interface Membership {
  lockId: string;
  userId: string;
  role: MemberRole;
  /** Unix seconds; null = immediately. */
  start: number | null;
  /** Unix seconds; null = never. */
  end: number | null;
  alias: string | null;
  favourite: boolean;
  /** The member's own "hide this lock" flag (settings.hidden). */
  hidden: boolean;
  colour: string | null;
  /** The share's own weekly hours; null = none. */
  schedule: TimeRequirement[] | null;
}

/** A lock as one member sees it: the lock's columns plus their membership and the site's colour. */
export type MemberLock = Omit<LockRow, 'registration_key_hash' | 'secret_hash' | 'pending_actor_user_id' | 'pending_target_locked' | 'pending_until' | 'pending_command_id' | 'pending_late' | 'decommissioned_at' | 'door_changed_at' | 'presence_changed_at' | 'code_digits_min' | 'code_digits_max' | 'reported_lockdown_at' | 'report_ts' | 'disconnect_unaudited'> & {
  member: Membership;
  site_colour: string | null;
};

const MEMBER_COLUMNS = [
  'lock_members.lock_id',
  'lock_members.user_id',
  'lock_members.role',
  'lock_members.starts_at',
  'lock_members.ends_at',
  'lock_members.alias',
  'lock_members.favourite',
  'lock_members.hidden',
  'lock_members.colour',
  'lock_members.schedule',
] as const;

/** Every column of `locks` except the two secrets' hashes, which never leave the lock service. */
const LOCK_COLUMNS = [
  'locks.id',
  'locks.name',
  'locks.site_id',
  'locks.owner_user_id',
  'locks.claimed_at',
  'locks.unlock_time',
  'locks.permitted_addresses',
  'locks.default_name',
  'locks.usage_requirements',
  'locks.unlock_between',
  'locks.tx_beacon_rssi',
  'locks.rx_beacon_rssi',
  'locks.proximity_unlock',
  'locks.delay',
  'locks.locked',
  'locks.door_open',
  'locks.connected',
  'locks.last_operation',
  'locks.config_version',
  'locks.device_kind',
  'locks.device_capabilities',
  'locks.battery',
  'locks.jammed',
  'locks.tamper',
  'locks.direct_access',
  'locks.direct_access_endpoints',
  'locks.reported_lockdown',
  'locks.created',
  'locks.updated',
] as const;

type MemberColumns = Pick<Selectable<LockMembersTable>, 'lock_id' | 'user_id' | 'role' | 'starts_at' | 'ends_at' | 'alias' | 'favourite' | 'hidden' | 'colour' | 'schedule'>;

function toMembership(row: MemberColumns): Membership {
  return {
    lockId: row.lock_id,
    userId: row.user_id,
    role: row.role,
    start: row.starts_at,
    end: row.ends_at,
    alias: row.alias,
    favourite: row.favourite === 1,
    hidden: row.hidden === 1,
    colour: row.colour,
    schedule: readSchedule(row.schedule),
  };
}

/** The caller's enrolment on a lock, or undefined when they are not a member. */
export async function findMembership(db: Executor, lockId: string, userId: string): Promise<Membership | undefined> {
  const row = await db.selectFrom('lock_members').select(MEMBER_COLUMNS).where('lock_id', '=', lockId).where('user_id', '=', userId).executeTakeFirst();
  return row && toMembership(row);
}

export function findLock(db: Executor, lockId: string): Promise<LockRow | undefined> {
  return db.selectFrom('locks').selectAll().where('id', '=', lockId).executeTakeFirst();
}

/**
 * The lock row, locked against concurrent membership and settings changes until the transaction
 * ends (PostgreSQL; SQLite runs one write transaction at a time anyway).
 */
export function findLockForUpdate(db: Executor, dialect: DialectName, lockId: string): Promise<LockRow | undefined> {
  const query = db.selectFrom('locks').selectAll().where('id', '=', lockId);
  return (dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
}

function memberLocksQuery(db: Executor, userId: string) {
  return db
    .selectFrom('lock_members')
    .innerJoin('locks', 'locks.id', 'lock_members.lock_id')
    .leftJoin('sites', 'sites.id', 'locks.site_id')
    .select([...LOCK_COLUMNS, ...MEMBER_COLUMNS, 'sites.colour as site_colour'])
    .where('lock_members.user_id', '=', userId);
}

/** One member's row of a lock as read (the lock's columns, the member's, the site's colour): what a lock's JSON is made from (src/locks/lock-json.ts). */
export type MemberLockRow = Awaited<ReturnType<ReturnType<typeof memberLocksQuery>['executeTakeFirstOrThrow']>>;

/**
 * Field by field on purpose: an object-rest destructuring of the row (`{ lock_id, ..., ...lock }`)
 * cost as much CPU as the query itself on GET /device (about 10 ms per 1,000 locks).
 */
function toMemberLock(row: MemberLockRow): MemberLock {
  return {
    id: row.id,
    name: row.name,
    site_id: row.site_id,
    owner_user_id: row.owner_user_id,
    claimed_at: row.claimed_at,
    unlock_time: row.unlock_time,
    permitted_addresses: row.permitted_addresses,
    default_name: row.default_name,
    usage_requirements: row.usage_requirements,
    unlock_between: row.unlock_between,
    tx_beacon_rssi: row.tx_beacon_rssi,
    rx_beacon_rssi: row.rx_beacon_rssi,
    proximity_unlock: row.proximity_unlock,
    delay: row.delay,
    locked: row.locked,
    door_open: row.door_open,
    connected: row.connected,
    last_operation: row.last_operation,
    config_version: row.config_version,
    device_kind: row.device_kind,
    device_capabilities: row.device_capabilities,
    battery: row.battery,
    jammed: row.jammed,
    tamper: row.tamper,
    direct_access: row.direct_access,
    direct_access_endpoints: row.direct_access_endpoints,
    reported_lockdown: row.reported_lockdown,
    created: row.created,
    updated: row.updated,
    site_colour: row.site_colour,
    member: toMembership(row),
  };
}

// Prepared: GET /device/{id} reads one lock this way, and a claim its new lock.
const memberLockQuery = prepareQuery<{ lockId: string; userId: string }, MemberLockRow>((db, slot) =>
  memberLocksQuery(db, slot.userId).where('lock_members.lock_id', '=', slot.lockId));

/** The lock as `userId` sees it, or undefined when they are not a member (or it does not exist). */
export async function loadLockForMember(db: Executor, dialect: DialectName, lockId: string, userId: string): Promise<MemberLock | undefined> {
  const row = await loadLockRowForMember(db, dialect, lockId, userId);
  return row && toMemberLock(row);
}

/** The row of the lock as `userId` sees it (to present it), or undefined when they are not a member (or it does not exist). */
export function loadLockRowForMember(db: Executor, dialect: DialectName, lockId: string, userId: string): Promise<MemberLockRow | undefined> {
  return memberLockQuery.takeFirst(db, dialect, { lockId, userId });
}

/**
 * What a signed operation needs of its lock: the settings MUTATE_LOCK is judged by
 * (src/access/member-policy.ts, canUnlock) and the caller's enrolment, which every operation's
 * policy reads. Not the lock's other columns nor its site: the whole MemberLock cost half again
 * as much to read on every unlock (docs/decisions.md, Performance).
 */
export interface OperationLock {
  id: string;
  unlock_time: number;
  permitted_addresses: string;
  usage_requirements: string;
  member: Pick<Membership, 'role' | 'start' | 'end' | 'schedule'>;
  /** The responders of the lockdown the lock is under (not lifted), as read with the lock; undefined when under none. */
  lockdownResponders: string[] | undefined;
}

type OperationLockRow = Pick<LockRow, 'unlock_time' | 'permitted_addresses' | 'usage_requirements'> & Pick<MemberColumns, 'role' | 'starts_at' | 'ends_at' | 'schedule'> & { lockdown_responders: string | null };

// Prepared: it opens every unlock (and every other signed operation). The lockdown's responders
// come with it, which an unlock checks (issue 33 point 3: a round trip fewer on PostgreSQL).
const operationLockQuery = prepareQuery<{ lockId: string; userId: string }, OperationLockRow>((db, slot) =>
  db
    .selectFrom('lock_members')
    .innerJoin('locks', 'locks.id', 'lock_members.lock_id')
    .leftJoin('lockdown_locks as ll', (join) => join.onRef('ll.lock_id', '=', 'locks.id').on('ll.lifted_at', 'is', null))
    .leftJoin('lockdowns', 'lockdowns.id', 'll.lockdown_id')
    .select(['locks.unlock_time', 'locks.permitted_addresses', 'locks.usage_requirements', 'lock_members.role', 'lock_members.starts_at', 'lock_members.ends_at', 'lock_members.schedule', 'lockdowns.responders as lockdown_responders'])
    .where('lock_members.lock_id', '=', slot.lockId)
    .where('lock_members.user_id', '=', slot.userId));

/** The row matched `lock_members.lock_id = lockId` exactly, so `lockId` is the lock's id as stored. */
function toOperationLock(lockId: string, row: OperationLockRow): OperationLock {
  return {
    id: lockId,
    unlock_time: row.unlock_time,
    permitted_addresses: row.permitted_addresses,
    usage_requirements: row.usage_requirements,
    member: { role: row.role, start: row.starts_at, end: row.ends_at, schedule: readSchedule(row.schedule) },
    lockdownResponders: row.lockdown_responders === null ? undefined : (JSON.parse(row.lockdown_responders) as string[]),
  };
}

/**
 * The lock as a signed operation by `userId` needs it (OperationLock), or undefined when they are
 * not a member (or it does not exist). Synchronous on SQLite when nothing else holds the
 * connection (as the session read, docs/decisions.md), else through the driver.
 */
export async function readLockForOperation(database: Database, lockId: string, userId: string): Promise<OperationLock | undefined> {
  const row = await operationLockQuery.takeFirstNow(database, { lockId, userId });
  return row && toOperationLock(lockId, row);
}

export interface LockListFilter {
  favouritesOnly?: boolean;
  siteId?: string;
}

/** The rows of every lock `userId` is enrolled on (one index range of lock_members), oldest lock first (by `created`: lock ids are random). */
export function listLockRowsForMember(db: Executor, userId: string, filter: LockListFilter = {}): Promise<MemberLockRow[]> {
  let query = memberLocksQuery(db, userId);
  if (filter.favouritesOnly) query = query.where('lock_members.favourite', '=', 1);
  if (filter.siteId !== undefined) query = query.where('locks.site_id', '=', filter.siteId);
  return query.orderBy('locks.created').orderBy('lock_members.lock_id').execute();
}

export async function insertLock(db: Executor, lock: Insertable<LocksTable>): Promise<void> {
  await db.insertInto('locks').values(lock).execute();
}

export async function insertMember(db: Executor, member: Insertable<LockMembersTable>): Promise<void> {
  await db.insertInto('lock_members').values(member).execute();
}

/** Members of a lock among `userIds` (others are not enrolled). */
export async function findMemberships(db: Executor, lockId: string, userIds: readonly string[]): Promise<Membership[]> {
  if (userIds.length === 0) return [];
  const rows = await db.selectFrom('lock_members').select(MEMBER_COLUMNS).where('lock_id', '=', lockId).where('user_id', 'in', [...userIds]).execute();
  return rows.map(toMembership);
}

/** Takes the next config version; the row lock it takes also serialises concurrent changes on PostgreSQL. */
export async function bumpConfigVersion(db: Executor, lockId: string, now: number): Promise<void> {
  await db
    .updateTable('locks')
    .set((eb) => ({ config_version: eb('config_version', '+', 1), updated: now }))
    .where('id', '=', lockId)
    .execute();
}

/**
 * Takes the row lock of each of these locks (PostgreSQL; SQLite runs one write transaction at a
 * time), in id order, before anything else of the transaction: no membership change of theirs
 * runs meanwhile, and a transaction that then records audit entries (which serialise on the audit
 * tree's head) holds every row lock it needs first, so it cannot deadlock with another writer.
 */
export async function lockRowsForUpdate(uow: { db: Executor; dialect: 'sqlite' | 'postgres' }, lockIds: readonly string[]): Promise<void> {
  if (uow.dialect !== 'postgres' || lockIds.length === 0) return;
  await uow.db.selectFrom('locks').select('id').where('id', 'in', [...lockIds]).orderBy('id').forUpdate().execute();
}
