import { findUserById } from '../accounts/queries.js';
import { updateUser } from '../accounts/queries.js';
import { accountWriter } from '../accounts/live-sessions.js';
import { registrationKeyOf, rememberRegistrationKey } from '../accounts/registration-key.js';
import { issueTokenPair, openSession, type TokenPair } from '../accounts/sessions.js';
import type { AppContext } from '../context.js';
import { newSecretCode, sha256Hex } from '../crypto/random.js';
import { inTransaction, type Executor, type UnitOfWork } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';

/**
 * Visitors (issue 28 point 6; the docs: `visitor=true` "directs the visitor to a purely web based
 * experience"). An invitee created with `?visitor=true` gets, instead of the link to registration,
 * a one-time link to the console's visit page (`/console/visit#<secret>`: a fragment, so the secret
 * never reaches a server log). Opening it (POST /share/visit) proves the mailbox: the email counts
 * as verified, the shares held for it come in, the browser's new key is remembered as the one
 * the account starts with (certified then without a code) and a session is opened. No password,
 * no app. A visitor's shares are time-limited and USER only (src/sharing/enrolments.ts).
 */

/** How long a visitor's link may be opened. */
export const VISIT_LINK_SECONDS = 7 * 24 * 3600;
/** A share to a visitor that names no end ends this long after it starts. */
export const VISITOR_SHARE_SECONDS = 24 * 3600;

/** Records `userId` as a visitor; the secret of their link (shown once, in the email). */
export async function createVisitorInvitation(uow: UnitOfWork, userId: string, now: number): Promise<string> {
  const secret = newSecretCode();
  await uow.db.insertInto('visitor_invitations').values({ user_id: userId, token_hash: sha256Hex(secret), created: now, expires_at: now + VISIT_LINK_SECONDS, used_at: null }).execute();
  return secret;
}

export async function isVisitor(db: Executor, userId: string): Promise<boolean> {
  return (await db.selectFrom('visitor_invitations').select('user_id').where('user_id', '=', userId).executeTakeFirst()) !== undefined;
}

export interface VisitResult extends TokenPair {
  userId: string;
}

/**
 * POST /share/visit: the link's secret (once, before it expires: else 400, as for any spent code)
 * and the browser's Ed25519 public key. Verifies the email, releases the held shares, remembers the
 * key and opens a session, in one transaction.
 */
export async function takeVisit(ctx: AppContext, secret: string, ephemeralKey: string): Promise<VisitResult> {
  const rawKey = registrationKeyOf(ephemeralKey);
  const { user, session } = await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const now = ctx.now();
    const taken = await uow.db.updateTable('visitor_invitations').set({ used_at: now })
      .where('token_hash', '=', sha256Hex(secret)).where('used_at', 'is', null).where('expires_at', '>', now)
      .returning('user_id').executeTakeFirst();
    if (!taken) throw errors.badRequest('this visitor link is invalid, used or expired');
    const user = await findUserById(uow.db, taken.user_id);
    if (!user) throw errors.badRequest('this visitor link is invalid, used or expired');
    await updateUser(accountWriter(ctx, uow), user.id, { email_verified: 1, orphan: 0, updated: now });
    await ctx.accountEvents.announce('emailVerified', uow, { userId: user.id, callerUserId: user.id });
    await rememberRegistrationKey(uow.db, user.id, rawKey, now);
    const session = await openSession(ctx, uow.db, user.id);
    return { user: { ...user, email_verified: 1 as const, orphan: 0 as const }, session };
  });
  return { userId: user.id, ...(await issueTokenPair(ctx, user, session)) };
}
