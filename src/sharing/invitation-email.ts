import type { Caller } from '../accounts/caller.js';
import { DIRECT_NAMESPACE } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import { renderEmail } from '../messaging/branding.js';

/**
 * The invitation to someone without an account, in the inviter's branding (service or application),
 * naming `door` (the lock it is for, when the inviter said) and linking to the console's registration
 * with the address filled in; a visitor's (`visit`: the secret of their link), to the console's
 * web-only visit instead, where the browser is all they need.
 */
export function invitationSender(ctx: AppContext, inviter: Caller, email: string, door: string | null = null, visit: string | null = null): () => Promise<void> {
  return async () => {
    const branding = await ctx.brandingFor(inviter.namespace);
    // Nobody has proved this address: it gets no free text of the inviter's (their display name), only
    // an address they proved to us. An application user's "verified" email is the application's claim
    // (any address it likes, issue 27 point 2), so only a direct user's verified email names them.
    const verifiedInviter = inviter.namespace === DIRECT_NAMESPACE && inviter.emailVerified && inviter.email ? inviter.email : null;
    const who = verifiedInviter ?? `A ${branding.senderName} user`;
    // The door's name is the inviter's text too: only an inviter with a proved address may have it sent.
    const what = verifiedInviter !== null && door !== null ? `the door "${door}"` : 'a door';
    const message = visit !== null ? renderEmail(branding, {
      subject: `${who} invited you to ${branding.senderName}`,
      heading: 'You have been invited as a visitor',
      paragraphs: [
        `${who} wants to give you access to ${what} with ${branding.senderName} for a limited time.`,
        'Open this link in your phone\'s or computer\'s browser: you can open the door from there, with nothing to install. The link works once, within 7 days; keep the page it opens.',
        'If you did not expect this message you can ignore it.',
      ],
      action: { url: `${ctx.config.baseUrl}/console/visit#${visit}`, text: 'Open your visitor pass' },
    }) : renderEmail(branding, {
      subject: `${who} invited you to ${branding.senderName}`,
      heading: 'You have been invited',
      paragraphs: [
        `${who} wants to give you access to ${what} with ${branding.senderName}.`,
        `Create your account with this email address (${email}) to accept; the access shared with you is waiting there.`,
        'If you did not expect this message you can ignore it.',
      ],
      action: { url: `${ctx.config.baseUrl}/console/register?email=${encodeURIComponent(email)}`, text: 'Create your account' },
    });
    await ctx.mailer.send({ to: email, ...message });
  };
}
