import type { AppContext } from '../context.js';
import { newSecretCode, sha256Hex } from '../crypto/random.js';
import type { Executor } from '../db/transaction.js';
import { renderEmail } from '../messaging/branding.js';
import { insertEmailVerification } from './queries.js';

const VERIFICATION_TTL_SECONDS = 24 * 3600;

/**
 * Stores a new single-use verification code for `email` and returns the function that sends it,
 * to be run after the transaction commits.
 */
export async function prepareVerificationEmail(ctx: AppContext, db: Executor, user: { id: string; namespace: string; email: string; displayName: string | null }): Promise<() => Promise<void>> {
  const code = newSecretCode();
  const now = ctx.now();
  await insertEmailVerification(db, { code_hash: sha256Hex(code), user_id: user.id, email: user.email, created: now, expires_at: now + VERIFICATION_TTL_SECONDS });
  return async () => {
    const branding = await ctx.brandingFor(user.namespace);
    // The link opens the web console, which verifies through PUT /account/email/verify.
    const link = `${ctx.config.baseUrl}/console/verify?code=${encodeURIComponent(code)}`;
    const message = renderEmail(branding, {
      subject: `Verify your email for ${branding.senderName}`,
      // Never the account's own free text: nobody has proved this address belongs to whoever typed it (issue 15).
      heading: 'Hello',
      paragraphs: ['Please confirm that this is your email address. The link works once and expires in 24 hours.', `Verification code: ${code}`],
      action: { url: link, text: 'Verify email' },
    });
    await ctx.mailer.send({ to: user.email, ...message });
  };
}
