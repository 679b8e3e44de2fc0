import { assertAllowed } from '../access/member-policy.js';
import type { MemberRole } from '../access/types.js';
import type { Caller } from '../accounts/caller.js';
import { certifiedKeyOf } from '../accounts/certified-keys.js';
import { findUserById, type UserRow } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { findMembership } from '../locks/queries.js';
import { canListLockUsers } from './policy.js';
import { listEnrolmentsVisibleTo, listLockUsers, type LockUserRow } from './queries.js';

/** Who is enrolled where, for administrators: a lock's users, a user's enrolments. */

export interface UserWithLocks {
  user: UserRow;
  /** Enrolments, then held shares (`pending`: src/sharing/held-shares.ts). */
  devices: Array<{ lock_id: string; role: MemberRole; starts_at: number | null; ends_at: number | null; pending: boolean }>;
  /** The user's latest certified Ed25519 key (their publicKey when they have no legacy key). */
  certifiedKey: string | null;
}

/**
 * GET /user/{id}/: the user and their enrolments and held shares on the locks the caller
 * administers now, as GET /device/{id}/users shows them. 404 when there are none, so a caller
 * learns nothing about users outside their locks.
 */
export async function getUserWithLocks(ctx: AppContext, caller: Caller, userId: string): Promise<UserWithLocks> {
  const db = ctx.db.kysely;
  const now = ctx.now();
  const [enrolled, held] = await Promise.all([listEnrolmentsVisibleTo(db, caller.userId, userId, now), listEnrolmentsVisibleTo(db, caller.userId, userId, now, 'held_invite_shares')]);
  const devices = [...enrolled.map((row) => ({ ...row, pending: false })), ...held.map((row) => ({ ...row, pending: true }))];
  const user = devices.length > 0 ? await findUserById(db, userId) : undefined;
  if (!user) throw errors.notFound('user');
  return { user, devices, certifiedKey: user.public_key === null ? await certifiedKeyOf(db, userId) : null };
}

/** GET /device/{id}/users: 404 for a non-member, 403 unless an active ADMIN. Held shares (src/sharing/held-shares.ts) come last, `pending`. */
export async function listUsersOfLock(ctx: AppContext, caller: Caller, lockId: string): Promise<Array<LockUserRow & { pending: boolean }>> {
  const db = ctx.db.kysely;
  const member = await findMembership(db, lockId, caller.userId);
  if (!member) throw errors.notFound('lock');
  assertAllowed(canListLockUsers(member, ctx.now()));
  const [enrolled, held] = await Promise.all([listLockUsers(db, lockId), listLockUsers(db, lockId, 'held_invite_shares')]);
  return [...enrolled.map((row) => ({ ...row, pending: false })), ...held.map((row) => ({ ...row, pending: true }))];
}
