import type { Caller } from '../accounts/caller.js';
import { createLegacyKey, ensureLegacyPublicKey } from '../accounts/legacy-key.js';
import { findUserByEmail, insertUser, normaliseEmail, type UserRow } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import { newPublicId } from '../crypto/random.js';
import { isUniqueViolation } from '../db/errors.js';
import { inTransaction } from '../db/transaction.js';
import { administersAnyLock } from '../access/active-admin.js';
import { assertAllowed } from '../access/member-policy.js';
import { errors } from '../errors/catalogue.js';
import { defaultName } from '../locks/presenters.js';
import { loadLockForMember } from '../locks/queries.js';
import { invitationSender } from './invitation-email.js';
import { canManageMembers } from './policy.js';
import { createVisitorInvitation } from './visitors.js';

export interface PublicKeyResult {
  id: string;
  publicKey: string;
}

/**
 * GET|POST /share/invite/{email} (decisions §2, pending invites): the id and legacy public key of
 * the user with that email in the caller's namespace, so the caller can share a lock with them.
 * An unknown email becomes an orphan user with a service-generated key and is sent an
 * invitation after commit; a known user without a legacy key (registered v3) is given one.
 * Only a caller who administers a lock (and so can share one) may ask: 403 otherwise, so the
 * endpoint is neither an email directory nor an invitation cannon for everyone. With `lockId`
 * (`?device=`, a lock the caller administers), the invitation names that door. With `visitor`
 * (`?visitor=true`), a new invitee is a visitor: the email links to the console's web-only visit
 * instead of registration (src/sharing/visitors.ts); an existing account is answered as without it.
 */
export async function inviteByEmail(ctx: AppContext, caller: Caller, email: string, lockId?: string, visitor = false): Promise<PublicKeyResult> {
  if (!(await administersAnyLock(ctx.db.kysely, caller.userId, ctx.now()))) throw errors.forbidden('only lock administrators can invite users');
  const door = lockId === undefined ? null : await doorToShare(ctx, caller, lockId);
  const existing = await findUserByEmail(ctx.db.kysely, caller.namespace, email);
  if (existing) return withPublicKey(ctx, existing);
  try {
    return await createInvitee(ctx, caller, email, door, visitor);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // Invited concurrently by someone else: use theirs.
    const winner = await findUserByEmail(ctx.db.kysely, caller.namespace, email);
    if (!winner) throw err;
    return withPublicKey(ctx, winner);
  }
}

/** The name of the lock the invitation is for (`?device=`): one the caller administers now (404 non-member, 403 otherwise). */
async function doorToShare(ctx: AppContext, caller: Caller, lockId: string): Promise<string> {
  const lock = await loadLockForMember(ctx.db.kysely, ctx.db.dialect, lockId, caller.userId);
  if (!lock) throw errors.notFound('lock');
  assertAllowed(canManageMembers(lock.member, ctx.now()));
  return defaultName(lock);
}

async function withPublicKey(ctx: AppContext, user: UserRow): Promise<PublicKeyResult> {
  return { id: user.id, publicKey: await ensureLegacyPublicKey(ctx, user) };
}

async function createInvitee(ctx: AppContext, caller: Caller, email: string, door: string | null, visitor: boolean): Promise<PublicKeyResult> {
  // Counted before the invitee exists: an admin cannot mail the world one address at a time.
  await ctx.limits.invitationsPerUser.consume(caller.userId);
  const id = newPublicId();
  const key = await createLegacyKey(ctx, id);
  const address = email.trim();
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const now = ctx.now();
    await insertUser(uow.db, {
      id,
      namespace: caller.namespace,
      external_id: null,
      email: address,
      email_normalised: normaliseEmail(address),
      email_verified: 0,
      telephone: null,
      telephone_verified: 0,
      display_name: null,
      password_hash: null,
      public_key: key.public_key,
      private_key_sealed: key.private_key_sealed,
      orphan: 1,
      created: now,
      updated: now,
    });
    const visit = visitor ? await createVisitorInvitation(uow, id, now) : null;
    uow.onCommit(invitationSender(ctx, caller, address, door, visit));
    return { id, publicKey: key.public_key };
  });
}
