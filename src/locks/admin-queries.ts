import type { ExpressionBuilder } from 'kysely';
import type { DatabaseSchema } from '../db/schema.js';
import type { Executor } from '../db/transaction.js';
import type { LockMembersTable } from './tables.js';

/**
 * Reads scoped to the locks a user administers now: an ADMIN membership inside its start/end
 * window (an ADMIN whose access has ended administers nothing, decisions §4). The caller's own
 * lock_members row is always aliased `admin` in these queries.
 */
type WithAdmin = DatabaseSchema & { admin: LockMembersTable };

export function activeAdmin(userId: string, now: number) {
  return (eb: ExpressionBuilder<WithAdmin, 'admin'>) =>
    eb.and([
      eb('admin.user_id', '=', userId),
      eb('admin.role', '=', 'ADMIN'),
      eb.or([eb('admin.starts_at', 'is', null), eb('admin.starts_at', '<=', now)]),
      eb.or([eb('admin.ends_at', 'is', null), eb('admin.ends_at', '>', now)]),
    ]);
}

/** Locks `userId` administers now, with the names needed to show them (GET /device/shareable). */
export function listAdministeredLocks(db: Executor, userId: string, now: number) {
  return db
    .selectFrom('lock_members as admin')
    .innerJoin('locks', 'locks.id', 'admin.lock_id')
    .select(['locks.id', 'locks.name', 'locks.default_name', 'admin.alias'])
    .where(activeAdmin(userId, now))
    .orderBy('admin.lock_id')
    .execute();
}

/** True when `userId` administers at least one lock now. */
export async function administersAnyLock(db: Executor, userId: string, now: number): Promise<boolean> {
  const row = await db.selectFrom('lock_members as admin').select('admin.lock_id').where(activeAdmin(userId, now)).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The enrolments of `userId` on locks `adminId` administers now (GET /user/{id}/). */
export function listEnrolmentsVisibleTo(db: Executor, adminId: string, userId: string, now: number) {
  return db
    .selectFrom('lock_members as admin')
    .innerJoin('lock_members', 'lock_members.lock_id', 'admin.lock_id')
    .select(['lock_members.lock_id', 'lock_members.role', 'lock_members.starts_at', 'lock_members.ends_at'])
    .where(activeAdmin(adminId, now))
    .where('lock_members.user_id', '=', userId)
    .orderBy('lock_members.lock_id')
    .execute();
}
