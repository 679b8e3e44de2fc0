import type { Insertable, Selectable } from 'kysely';
import { activeAdmin } from '../access/active-admin.js';
import type { MemberRole, TimeRequirement } from '../access/types.js';
import type { Executor } from '../db/transaction.js';
import { readSchedule } from '../locks/json.js';
import type { DigitRange } from './policy.js';
import type { KeypadCodeLocksTable, KeypadCodesTable } from './tables.js';

export type CodeRow = Selectable<KeypadCodesTable>;
export type CodeLockRow = Selectable<KeypadCodeLocksTable>;

/** A user's enrolment on a lock as the codes read it: role, window, own hours and since when. */
export interface Enrolled {
  role: MemberRole;
  start: number | null;
  end: number | null;
  schedule: TimeRequirement[] | null;
  created: number;
}

export async function findEnrolment(db: Executor, lockId: string, userId: string): Promise<Enrolled | undefined> {
  const row = await db
    .selectFrom('lock_members')
    .select(['role', 'starts_at', 'ends_at', 'schedule', 'created'])
    .where('lock_id', '=', lockId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row && { role: row.role, start: row.starts_at, end: row.ends_at, schedule: readSchedule(row.schedule), created: row.created };
}

export function findCode(db: Executor, codeId: string): Promise<CodeRow | undefined> {
  return db.selectFrom('keypad_codes').selectAll().where('id', '=', codeId).executeTakeFirst();
}

export function insertCode(db: Executor, row: Insertable<KeypadCodesTable>) {
  return db.insertInto('keypad_codes').values(row).execute();
}

export function codeLocksOf(db: Executor, codeIds: readonly string[]): Promise<CodeLockRow[]> {
  if (codeIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('keypad_code_locks').selectAll().where('code_id', 'in', [...codeIds]).orderBy('created').orderBy('lock_id').execute();
}

/** Whether a live code of `lockId` (another than `exceptCode`) has this digest. */
export async function digestTaken(db: Executor, lockId: string, digest: string, exceptCode: string | null): Promise<boolean> {
  let query = db.selectFrom('keypad_code_locks').select('code_id').where('lock_id', '=', lockId).where('digest', '=', digest).where('removed_at', 'is', null);
  if (exceptCode !== null) query = query.where('code_id', '!=', exceptCode);
  return (await query.executeTakeFirst()) !== undefined;
}

/** The digits each lock's keypad takes, as it said (device protocol 1.5); null where it has not. */
export async function codeDigitsOf(db: Executor, lockIds: readonly string[]): Promise<Array<{ lockId: string; digits: DigitRange | null }>> {
  if (lockIds.length === 0) return [];
  const rows = await db.selectFrom('locks').select(['id', 'code_digits_min', 'code_digits_max']).where('id', 'in', [...lockIds]).orderBy('id').execute();
  return rows.map((row) => ({ lockId: row.id, digits: row.code_digits_min === null || row.code_digits_max === null ? null : { min: row.code_digits_min, max: row.code_digits_max } }));
}

export function insertCodeLock(db: Executor, row: Insertable<KeypadCodeLocksTable>) {
  return db.insertInto('keypad_code_locks').values(row).execute();
}

/** The locks `userId` administers now, of those given (all of theirs when `among` is null). */
export async function administeredLocks(db: Executor, userId: string, now: number, among: readonly string[] | null): Promise<string[]> {
  if (among !== null && among.length === 0) return [];
  let query = db.selectFrom('lock_members as admin').select('admin.lock_id').where(activeAdmin(userId, now));
  if (among !== null) query = query.where('admin.lock_id', 'in', [...among]);
  return (await query.execute()).map((row) => row.lock_id);
}

/** The ids of codes placed on any of `lockIds`, newest first. */
export async function codeIdsOnLocks(db: Executor, lockIds: readonly string[]): Promise<string[]> {
  if (lockIds.length === 0) return [];
  const rows = await db
    .selectFrom('keypad_code_locks')
    .innerJoin('keypad_codes', 'keypad_codes.id', 'keypad_code_locks.code_id')
    .select(['keypad_codes.id', 'keypad_codes.created'])
    .distinct()
    .where('keypad_code_locks.lock_id', 'in', [...lockIds])
    .orderBy('keypad_codes.created', 'desc')
    .orderBy('keypad_codes.id')
    .execute();
  return rows.map((row) => row.id);
}

export function findCodes(db: Executor, codeIds: readonly string[]): Promise<CodeRow[]> {
  if (codeIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('keypad_codes').selectAll().where('id', 'in', [...codeIds]).execute();
}

/** Each (lock, user) membership's window and since when, for the holders of these code rows. */
export async function holderMemberships(db: Executor, pairs: ReadonlyArray<{ lockId: string; userId: string }>) {
  const found = new Map<string, { start: number | null; end: number | null; schedule: TimeRequirement[] | null; created: number }>();
  const lockIds = [...new Set(pairs.map((p) => p.lockId))];
  const userIds = [...new Set(pairs.map((p) => p.userId))];
  if (lockIds.length === 0) return found;
  const rows = await db
    .selectFrom('lock_members')
    .select(['lock_id', 'user_id', 'starts_at', 'ends_at', 'schedule', 'created'])
    .where('lock_id', 'in', lockIds)
    .where('user_id', 'in', userIds)
    .execute();
  for (const row of rows) found.set(`${row.lock_id}:${row.user_id}`, { start: row.starts_at, end: row.ends_at, schedule: readSchedule(row.schedule), created: row.created });
  return found;
}

/** The config version each lock last said it holds (absent: never said). */
export async function appliedVersions(db: Executor, lockIds: readonly string[]): Promise<Map<string, number | null>> {
  const versions = new Map<string, number | null>();
  if (lockIds.length === 0) return versions;
  const rows = await db.selectFrom('keypad_locks').select(['lock_id', 'applied_version']).where('lock_id', 'in', [...lockIds]).execute();
  for (const row of rows) versions.set(row.lock_id, row.applied_version);
  return versions;
}

export function userEmails(db: Executor, userIds: readonly string[]) {
  if (userIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('users').select(['id', 'email', 'display_name']).where('id', 'in', [...userIds]).execute();
}

/** How a code's email names its doors: the recipient's own name for each (when a member of it) or its operator's. */
export async function codeMailDoors(db: Executor, lockIds: readonly string[], recipientId: string) {
  if (lockIds.length === 0) return [];
  return db
    .selectFrom('locks')
    .leftJoin('lock_members as own', (join) => join.onRef('own.lock_id', '=', 'locks.id').on('own.user_id', '=', recipientId))
    .select(['own.alias as alias', 'locks.name as lockName'])
    .where('locks.id', 'in', [...lockIds])
    .orderBy('locks.name')
    .execute();
}
