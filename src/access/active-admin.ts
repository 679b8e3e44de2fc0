import type { ExpressionBuilder } from 'kysely';
import type { DatabaseSchema } from '../db/schema.js';
import type { Executor } from '../db/transaction.js';
import type { LockMembersTable } from '../locks/tables.js';

/**
 * The SQL form of "an active ADMIN" (src/access/member-policy.ts): an ADMIN membership inside its
 * start/end window (an ADMIN whose access has ended administers nothing, decisions §4). For the
 * reads scoped to the locks a user administers now (locks, sites, tiles, the audit trail), which
 * alias the caller's own lock_members row `admin`.
 */
type WithAdmin = DatabaseSchema & { admin: LockMembersTable };

export function activeAdmin(userId: string, now: number) {
  return (eb: ExpressionBuilder<WithAdmin, 'admin'>) => eb.and([eb('admin.user_id', '=', userId), anActiveAdmin(now)(eb)]);
}

/** The same rule for whoever holds the `admin` row: every active ADMIN of the locks read (who to tell, who may aim a webhook). */
export function anActiveAdmin(now: number) {
  return (eb: ExpressionBuilder<WithAdmin, 'admin'>) =>
    eb.and([
      eb('admin.role', '=', 'ADMIN'),
      eb.or([eb('admin.starts_at', 'is', null), eb('admin.starts_at', '<=', now)]),
      eb.or([eb('admin.ends_at', 'is', null), eb('admin.ends_at', '>', now)]),
    ]);
}

/** True when `userId` administers at least one lock now: who may invite people or look them up. */
export async function administersAnyLock(db: Executor, userId: string, now: number): Promise<boolean> {
  const row = await db.selectFrom('lock_members as admin').select('admin.lock_id').where(activeAdmin(userId, now)).limit(1).executeTakeFirst();
  return row !== undefined;
}
