import { sql } from 'kysely';
import { activeAdmin } from '../access/active-admin.js';
import type { Executor } from '../db/transaction.js';

/** Reads of who is enrolled where, for sharing (the lock_members rows locks read are src/locks/queries.ts's). */

/** A lock's members and its lasting ADMINs at `now` (src/sharing/policy.ts, isLastingAdmin). */
export async function countMembers(db: Executor, lockId: string, now: number): Promise<{ adminCount: number; memberCount: number }> {
  const row = await db
    .selectFrom('lock_members')
    .select([
      (eb) => eb.fn.countAll<number>().as('members'),
      sql<number>`coalesce(sum(case when role = 'ADMIN' and ends_at is null and (starts_at is null or starts_at <= ${now}) then 1 else 0 end), 0)`.as('admins'),
    ])
    .where('lock_id', '=', lockId)
    .executeTakeFirst();
  return { adminCount: Number(row?.admins ?? 0), memberCount: Number(row?.members ?? 0) };
}

/** The user details a lock's users list shows (of `users` joined with their `certified_keys`). */
export const LISTED_USER_COLUMNS = [
  'users.id as user_id',
  'users.email',
  'users.public_key',
  'certified_keys.public_key as certified_key',
  'users.namespace',
  'users.display_name',
  'users.orphan',
] as const;

/**
 * A lock's members (`lock_members`), or the users whose shares on it are held
 * (`held_invite_shares`, the same columns: src/sharing/held-shares.ts), with the user details the
 * users list shows, oldest first.
 */
export function listLockUsers(db: Executor, lockId: string, shares: 'lock_members' | 'held_invite_shares' = 'lock_members') {
  return db
    .selectFrom(`${shares} as share`)
    .innerJoin('users', 'users.id', 'share.user_id')
    .leftJoin('certified_keys', 'certified_keys.user_id', 'share.user_id')
    .select(LISTED_USER_COLUMNS)
    .select(['share.role', 'share.starts_at', 'share.ends_at', 'share.schedule'])
    .where('share.lock_id', '=', lockId)
    .orderBy('share.created')
    .orderBy('share.user_id')
    .execute();
}

export type LockUserRow = Awaited<ReturnType<typeof listLockUsers>>[number];

/**
 * The enrolments of `userId` on locks `adminId` administers now (GET /user/{id}/), or their held
 * shares on those locks (`held_invite_shares`, the same columns).
 */
export function listEnrolmentsVisibleTo(db: Executor, adminId: string, userId: string, now: number, shares: 'lock_members' | 'held_invite_shares' = 'lock_members') {
  return db
    .selectFrom('lock_members as admin')
    .innerJoin(`${shares} as share`, 'share.lock_id', 'admin.lock_id')
    .select(['share.lock_id', 'share.role', 'share.starts_at', 'share.ends_at'])
    .where(activeAdmin(adminId, now))
    .where('share.user_id', '=', userId)
    .orderBy('share.lock_id')
    .execute();
}
