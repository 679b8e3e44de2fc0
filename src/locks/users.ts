import type { MemberRole } from '../access/types.js';
import type { Caller } from '../accounts/caller.js';
import { findUserById, type UserRow } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { listEnrolmentsVisibleTo } from './admin-queries.js';
import { certifiedKeyOf } from '../accounts/certified-keys.js';

export interface UserWithLocks {
  user: UserRow;
  devices: Array<{ lock_id: string; role: MemberRole; starts_at: number | null; ends_at: number | null }>;
  /** The user's latest certified Ed25519 key (their publicKey when they have no legacy key). */
  certifiedKey: string | null;
}

/**
 * GET /user/{id}/: the user and their enrolments on the locks the caller administers now.
 * 404 when there are none, so a caller learns nothing about users outside their locks.
 */
export async function getUserWithLocks(ctx: AppContext, caller: Caller, userId: string): Promise<UserWithLocks> {
  const db = ctx.db.kysely;
  const devices = await listEnrolmentsVisibleTo(db, caller.userId, userId, ctx.now());
  const user = devices.length > 0 ? await findUserById(db, userId) : undefined;
  if (!user) throw errors.notFound('user');
  return { user, devices, certifiedKey: user.public_key === null ? await certifiedKeyOf(db, userId) : null };
}
