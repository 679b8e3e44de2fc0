import type { Selectable } from 'kysely';
import type { Executor } from '../db/transaction.js';
import { activeAdmin } from '../access/active-admin.js';
import type { AuditEntriesTable } from './tables.js';
import { AUDIT_TYPES, type AuditType } from './types.js';

export type AuditRow = Selectable<AuditEntriesTable>;

/**
 * A lock log row: the entry, with its actor's and subject's email and display name as they were
 * when it was recorded (never today's users row: issue 15 §5).
 */
export type LockLogRow = AuditRow;

/** A user log row: likewise. */
export type UserLogRow = AuditRow;

/** A page of a log: inclusive time bounds (Unix seconds), newest first. */
export interface PageQuery {
  start?: number;
  end?: number;
  limit: number;
  /** A start/end range asked for whole (no limit): more than MAX_RANGE entries is a 400. */
  wholeRange?: boolean;
  /** Only entries older than this `seq` (the cursor of a page that went on). */
  beforeSeq?: number;
}

/**
 * The reader's enrolment on a lock (role and window, for canReadAdminData of src/access/member-policy.ts), or
 * undefined when they are not a member. The audit reads lock_members itself: it sits below the
 * features that record into it.
 */
export function findReaderEnrolment(db: Executor, lockId: string, userId: string) {
  return db.selectFrom('lock_members').select(['role', 'starts_at as start', 'ends_at as end']).where('lock_id', '=', lockId).where('user_id', '=', userId).executeTakeFirst();
}

/** Whether the lock exists (its trail outlives it: see src/audit/cli.ts). */
export async function lockExists(db: Executor, lockId: string): Promise<boolean> {
  return (await db.selectFrom('locks').select('id').where('id', '=', lockId).executeTakeFirst()) !== undefined;
}

/** One lock's entries, each carrying who its actor and subject were (the v2 shape shows them). */
export function lockEntries(db: Executor, lockId: string) {
  return db.selectFrom('audit_entries as a').selectAll('a').where('a.lock_id', '=', lockId);
}

/** The newest entries of one lock: one backward range read of the (lock_id, seq) index. */
export function lockLogPage(db: Executor, lockId: string, page: PageQuery, types?: readonly AuditType[]): Promise<LockLogRow[]> {
  return lockEntries(db, lockId)
    .$if(page.start !== undefined, (q) => q.where('a.timestamp', '>=', page.start!))
    .$if(page.end !== undefined, (q) => q.where('a.timestamp', '<=', page.end!))
    .$if(types !== undefined, (q) => q.where('a.type', 'in', [...types!]))
    .$if(page.beforeSeq !== undefined, (q) => q.where('a.seq', '<', page.beforeSeq!))
    .orderBy('a.seq', 'desc')
    .limit(page.limit)
    .execute();
}

/** Only the entries on the locks `adminId` administers at `now` (an ADMIN whose window has ended administers nothing). */
export interface AdminScope {
  adminId: string;
  now: number;
}

/**
 * The newest entries in which `userId` is actor or subject, optionally only on the locks of an
 * admin scope. Two index range reads, (actor_user_id, seq) and (subject_user_id, seq),
 * merged here: an OR would make PostgreSQL sort every entry of the user.
 */
export async function userLogPage(db: Executor, userId: string, page: PageQuery, scope?: AdminScope): Promise<UserLogRow[]> {
  const side = (column: 'a.actor_user_id' | 'a.subject_user_id') =>
    db
      .selectFrom('audit_entries as a')
      .selectAll('a')
      .where(column, '=', userId)
      // The spec's types only: the SDK decodes `type` as an enum (Latchkey's own, such as a lockdown an admin declared, stay off it).
      .where('a.type', 'in', [...AUDIT_TYPES])
      .$if(page.start !== undefined, (q) => q.where('a.timestamp', '>=', page.start!))
      .$if(page.end !== undefined, (q) => q.where('a.timestamp', '<=', page.end!))
      .$if(scope !== undefined, (q) => q.where('a.lock_id', 'in', administeredLocks(db, scope!)))
      .orderBy('a.seq', 'desc')
      .limit(page.limit)
      .execute();
  const [asActor, asSubject] = await Promise.all([side('a.actor_user_id'), side('a.subject_user_id')]);
  return mergeNewestFirst(asActor, asSubject, page.limit);
}

/** Two newest-first pages merged into one, without the entries both hold. */
export function mergeNewestFirst<R extends { seq: number }>(a: readonly R[], b: readonly R[], limit: number): R[] {
  const bySeq = new Map<number, R>();
  for (const row of [...a, ...b]) bySeq.set(row.seq, row);
  return [...bySeq.values()].sort((x, y) => y.seq - x.seq).slice(0, limit);
}

function administeredLocks(db: Executor, scope: AdminScope) {
  return db.selectFrom('lock_members as admin').select('admin.lock_id').where(activeAdmin(scope.adminId, scope.now));
}

/** Which of `lockIds` the scope's admin administers now. */
export async function administeredAmong(db: Executor, scope: AdminScope, lockIds: readonly string[]): Promise<Set<string>> {
  if (lockIds.length === 0) return new Set();
  const rows = await administeredLocks(db, scope).where('admin.lock_id', 'in', [...new Set(lockIds)]).execute();
  return new Set(rows.map((row) => row.lock_id));
}

/**
 * Whether the scope's admin administers a lock that `userId` is a member of or appears in the
 * audit of (so a revoked user's history stays readable by the admins of their former locks).
 */
export async function administersLockOf(db: Executor, scope: AdminScope, userId: string): Promise<boolean> {
  const shared = await db
    .selectFrom('lock_members as admin')
    .innerJoin('lock_members as theirs', 'theirs.lock_id', 'admin.lock_id')
    .select('admin.lock_id')
    .where(activeAdmin(scope.adminId, scope.now))
    .where('theirs.user_id', '=', userId)
    .limit(1)
    .executeTakeFirst();
  if (shared) return true;
  for (const column of ['actor_user_id', 'subject_user_id'] as const) {
    const entry = await db
      .selectFrom('audit_entries')
      .select('seq')
      .where(column, '=', userId)
      .where('lock_id', 'in', administeredLocks(db, scope))
      .limit(1)
      .executeTakeFirst();
    if (entry) return true;
  }
  return false;
}

/** The first lock id with audit entries after `after` (keyset walk over the (lock_id, seq) index). */
export async function nextAuditedLock(db: Executor, after: string | null): Promise<string | undefined> {
  const row = await db
    .selectFrom('audit_entries')
    .select('lock_id')
    .$if(after !== null, (q) => q.where('lock_id', '>', after!))
    .orderBy('lock_id')
    .limit(1)
    .executeTakeFirst();
  return row?.lock_id;
}

/** A lock's entries after `afterSeq`, oldest first. */
export function chainPage(db: Executor, lockId: string, afterSeq: number, limit: number): Promise<AuditRow[]> {
  return db.selectFrom('audit_entries').selectAll().where('lock_id', '=', lockId).where('seq', '>', afterSeq).orderBy('seq').limit(limit).execute();
}
