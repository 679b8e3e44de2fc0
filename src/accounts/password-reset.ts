import type { ExpressionBuilder } from 'kysely';
import type { AppContext } from '../context.js';
import { hashPassword } from '../crypto/passwords.js';
import { newSecretCode, sha256Hex } from '../crypto/random.js';
import type { DatabaseSchema } from '../db/schema.js';
import { inTransaction } from '../db/transaction.js';
import { errors, isAppError } from '../errors/catalogue.js';
import { renderEmail } from '../messaging/branding.js';
import type { EmailMessage } from '../messaging/mailer.js';
import { accountWriter } from './live-sessions.js';
import { forgetLoginFailures, loginAttempt } from './login-limits.js';
import { DIRECT_NAMESPACE, findUserByEmail, findUserById, normaliseEmail, revokeOtherSessions, updateUser, type UserRow } from './queries.js';

/** How long an emailed reset token works. */
export const RESET_TOKEN_TTL_SECONDS = 3600;

/**
 * POST /account/password/reset/initialize: emails a single-use token to a direct account with
 * that address. The answer is the same whether or not there is one (no account enumeration); the
 * caller's address is rate-limited by the route, the email address here per caller address and,
 * more loosely, from every caller address (a limited request gets no email, silently, and leaves
 * the last token sent valid). A new token replaces the user's earlier ones.
 */
export async function startPasswordReset(ctx: AppContext, email: string, address: string): Promise<void> {
  if (!(await mayEmailReset(ctx, normaliseEmail(email), address))) return;
  const token = newSecretCode();
  const now = ctx.now();
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const user = await findUserByEmail(uow.db, DIRECT_NAMESPACE, email);
    if (!user || user.orphan === 1 || !user.email) return;
    await uow.db.deleteFrom('password_reset_tokens').where('user_id', '=', user.id).execute();
    await uow.db.insertInto('password_reset_tokens').values({ token_hash: sha256Hex(token), user_id: user.id, created: now, expires_at: now + RESET_TOKEN_TTL_SECONDS }).execute();
    // Not awaited: the answer must not take longer when the account exists.
    uow.onCommit(() => ctx.mailer.sendLater('password reset email', () => resetEmail(ctx, user, token)));
  });
}

/**
 * Counted per (email, caller address) so that an outsider asking for resets spends only their own
 * allowance, never the owner's; and per email address from every caller address against mail
 * bombing. That ceiling refuses the owner too, but its window is the token's lifetime and a
 * refused request makes no new token: the last email sent still holds a valid one
 * (decisions.md "Abuse limits"). A request its own pair refuses adds nothing to the ceiling.
 */
async function mayEmailReset(ctx: AppContext, email: string, address: string): Promise<boolean> {
  const pair = `password-reset:${email}|${address}`;
  try {
    await ctx.limits.verificationPerUser.consume(pair);
  } catch (err) {
    if (isAppError(err) && err.status === 429) return false;
    throw err;
  }
  try {
    await ctx.limits.passwordResetsPerEmailAll.consume(email);
    return true;
  } catch (err) {
    if (!(isAppError(err) && err.status === 429)) throw err;
    // Refused by the ceiling, not by this address's own requests: the pair keeps its allowance.
    await ctx.limits.verificationPerUser.refund(pair);
    return false;
  }
}

async function resetEmail(ctx: AppContext, user: UserRow, token: string): Promise<EmailMessage> {
  const branding = await ctx.brandingFor(user.namespace);
  const message = renderEmail(branding, {
    subject: `Reset your ${branding.senderName} password`,
    // Never the account's own free text: nobody has proved this address belongs to whoever typed it (issue 15).
    heading: 'Hello',
    paragraphs: [
      `Someone asked to reset the password of your account. The token below works once and expires in ${RESET_TOKEN_TTL_SECONDS / 60} minutes.`,
      `User id: ${user.id}`,
      `Reset token: ${token}`,
      'If it was not you, ignore this message: your password stays as it is.',
    ],
    // The web console's reset page takes both from the link (apps may read them from the text).
    action: { url: `${ctx.config.baseUrl}/console/reset?userId=${encodeURIComponent(user.id)}&token=${encodeURIComponent(token)}`, text: 'Choose a new password' },
  });
  return { to: user.email!, ...message };
}

/** The row of `userId`'s reset token `token`, while unexpired. */
function resetToken(userId: string, token: string, now: number) {
  return (eb: ExpressionBuilder<DatabaseSchema, 'password_reset_tokens'>) =>
    eb.and([eb('token_hash', '=', sha256Hex(token)), eb('user_id', '=', userId), eb('expires_at', '>', now)]);
}

const invalidToken = () => errors.badRequest('password reset token is invalid, used or expired');

/**
 * POST /account/password/reset/verify: the token (once, unexpired, of that user) sets the new
 * password, and every session of the account ends. A failed login count is cleared too.
 */
export async function completePasswordReset(ctx: AppContext, input: { userId: string; token: string; password: string; address: string }): Promise<void> {
  const userId = input.userId.toLowerCase();
  // The token first: an anonymous caller with a wrong one costs a read, not an argon2id hash (issue 27 point 9).
  const valid = await ctx.db.kysely.selectFrom('password_reset_tokens').select('user_id').where(resetToken(userId, input.token, ctx.now())).executeTakeFirst();
  if (!valid) throw invalidToken();
  const hash = await hashPassword(input.password, ctx.passwordHashMemoryKiB);
  const user = await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const now = ctx.now();
    // Single use: only the request that deletes the row may use it.
    const used = await uow.db.deleteFrom('password_reset_tokens').where(resetToken(userId, input.token, now)).executeTakeFirst();
    const owner = Number(used.numDeletedRows) === 1 ? await findUserById(uow.db, userId) : undefined;
    if (!owner) throw invalidToken();
    const writer = accountWriter(ctx, uow);
    await updateUser(writer, userId, { password_hash: hash, updated: now });
    await revokeOtherSessions(writer, userId, null, now);
    return owner;
  });
  // The owner proved the mailbox: the account's failed-login ceiling and this address start afresh.
  if (user.email) await forgetLoginFailures(ctx, loginAttempt(user.email, input.address));
}
