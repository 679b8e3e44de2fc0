import { activeAdmin } from '../access/active-admin.js';
import type { Executor } from '../db/transaction.js';

/**
 * Reads scoped to the locks a user administers now (src/access/active-admin.ts). The caller's own
 * lock_members row is always aliased `admin` in these queries.
 */

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
