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
