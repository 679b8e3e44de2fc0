import type { Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { hashPassword, verifyPassword } from '../crypto/passwords.js';
import { sha256Hex } from '../crypto/random.js';
import { inTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import type { Caller } from './caller.js';
import { prepareVerificationEmail } from './emails.js';
import { certifiedKeyOf } from './certified-keys.js';
import { ensureLegacyPublicKey } from './legacy-key.js';
import { accountWriter } from './live-sessions.js';
import { presentCallerAccount } from './presenters.js';
import { consumeEmailVerification, findUserById, revokeOtherSessions, updateUser, type UserRow } from './queries.js';
import type { AccountResponse } from './schemas.js';

export async function getAccount(ctx: AppContext, caller: Caller): Promise<UserRow> {
  const user = await findUserById(ctx.db.kysely, caller.userId);
  if (!user) throw errors.unauthenticated();
  return user;
}

/**
 * GET /account for a user without a legacy key yet (registered with v3, or an application's
 * user): the SDK's BasicUserDetailsResponse requires `publicKey`, so the key is made now, once.
 */
export async function accountWithPublicKey(ctx: AppContext, caller: Caller): Promise<Static<typeof AccountResponse>> {
  const publicKey = (await certifiedKeyOf(ctx.db.kysely, caller.userId)) ?? (await ensureLegacyPublicKey(ctx, { id: caller.userId, public_key: caller.publicKey }));
  return { ...presentCallerAccount(caller), publicKey };
}

export async function updateDisplayName(ctx: AppContext, caller: Caller, displayName: string): Promise<void> {
  await updateUser(accountWriter(ctx), caller.userId, { display_name: displayName, updated: ctx.now() });
}

/** A wrong old password is 403, not 401, which clients take as "signed out" (decisions §2). */
export async function changePassword(ctx: AppContext, caller: Caller, oldPassword: string, newPassword: string): Promise<void> {
  const user = await getAccount(ctx, caller);
  const limitKey = `password:${user.id}`;
  // Counted before checking, like login: parallel guesses cannot overrun the limit.
  await ctx.limits.loginFailuresPerAccount.consume(limitKey);
  if (!user.password_hash || !(await verifyPassword(user.password_hash, oldPassword))) throw errors.wrongPassword();
  await ctx.limits.loginFailuresPerAccount.reset(limitKey);
  const hash = await hashPassword(newPassword, ctx.passwordHashMemoryKiB);
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const writer = accountWriter(ctx, uow);
    await updateUser(writer, user.id, { password_hash: hash, updated: ctx.now() });
    // Whoever else held a session with the old password loses it.
    await revokeOtherSessions(writer, user.id, caller.sessionId, ctx.now());
  });
}

/**
 * PUT /account/email/verify. The code proves the mailbox; `emailVerified` is announced in the same
 * transaction (src/accounts/events.ts): sharing releases the shares waiting for it, and refuses
 * (403, the code stays unused) when they wait for an account other than the caller's (issue 15).
 */
export async function verifyEmail(ctx: AppContext, code: string, callerUserId?: string): Promise<void> {
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const { db } = uow;
    const verification = await consumeEmailVerification(db, sha256Hex(code), ctx.now());
    if (!verification) throw errors.badRequest('verification code is invalid, used or expired');
    const user = await findUserById(db, verification.user_id);
    // A code proves only the address it was sent to.
    if (!user || user.email !== verification.email) throw errors.badRequest('verification code is invalid, used or expired');
    await updateUser(accountWriter(ctx, uow), user.id, { email_verified: 1, updated: ctx.now() });
    await ctx.accountEvents.announce('emailVerified', uow, { userId: user.id, callerUserId });
  });
}

export async function resendVerification(ctx: AppContext, caller: Caller): Promise<void> {
  await ctx.limits.verificationPerUser.consume(`email:${caller.userId}`);
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const user = await findUserById(uow.db, caller.userId);
    if (!user?.email || user.email_verified === 1) return;
    uow.onCommit(await prepareVerificationEmail(ctx, uow.db, { id: user.id, namespace: user.namespace, email: user.email, displayName: user.display_name }));
  });
}
