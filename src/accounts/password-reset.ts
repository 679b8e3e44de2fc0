import type { AppContext } from '../context.js';
import { hashPassword } from '../crypto/passwords.js';
import { newSecretCode, sha256Hex } from '../crypto/random.js';
import { inTransaction } from '../db/transaction.js';
import { errors, isAppError } from '../errors/catalogue.js';
import { renderEmail } from '../messaging/branding.js';
import { accountWriter } from './live-sessions.js';
import { forgetLoginFailures, loginAttempt } from './login-limits.js';
import { DIRECT_NAMESPACE, findUserByEmail, findUserById, normaliseEmail, revokeOtherSessions, updateUser, type UserRow } from './queries.js';

/** How long an emailed reset token works. */
export const RESET_TOKEN_TTL_SECONDS = 3600;

/**
 * POST /account/password/reset/initialize: emails a single-use token to a direct account with
 * that address. The answer is the same whether or not there is one (no account enumeration); the
 * caller's address is rate-limited by the route, the email address here (a limited address gets
 * no further email, silently). A new token replaces the user's earlier ones.
 */
export async function startPasswordReset(ctx: AppContext, email: string): Promise<void> {
  try {
    await ctx.limits.verificationPerUser.consume(`password-reset:${normaliseEmail(email)}`);
  } catch (err) {
    if (isAppError(err) && err.status === 429) return;
    throw err;
  }
  const token = newSecretCode();
  const now = ctx.now();
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const user = await findUserByEmail(uow.db, DIRECT_NAMESPACE, email);
    if (!user || user.orphan === 1 || !user.email) return;
    await uow.db.deleteFrom('password_reset_tokens').where('user_id', '=', user.id).execute();
    await uow.db.insertInto('password_reset_tokens').values({ token_hash: sha256Hex(token), user_id: user.id, created: now, expires_at: now + RESET_TOKEN_TTL_SECONDS }).execute();
    // Not awaited: the answer must not take longer when the account exists.
    uow.onCommit(() => {
      sendResetEmail(ctx, user, token).catch((err: unknown) => ctx.logger.error({ err }, 'password reset email could not be sent'));
    });
  });
}

async function sendResetEmail(ctx: AppContext, user: UserRow, token: string): Promise<void> {
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
  await ctx.mailer.send({ to: user.email!, ...message });
}

const invalidToken = () => errors.badRequest('password reset token is invalid, used or expired');

/**
 * POST /account/password/reset/verify: the token (once, unexpired, of that user) sets the new
 * password, and every session of the account ends. A failed login count is cleared too.
 */
export async function completePasswordReset(ctx: AppContext, input: { userId: string; token: string; password: string; address: string }): Promise<void> {
  const hash = await hashPassword(input.password);
  const userId = input.userId.toLowerCase();
  const user = await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const now = ctx.now();
    // Single use: only the request that deletes the row may use it.
    const used = await uow.db
      .deleteFrom('password_reset_tokens')
      .where('token_hash', '=', sha256Hex(input.token))
      .where('user_id', '=', userId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
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
