import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { renderEmail } from '../messaging/branding.js';

/** The invitation to someone without an account, in the inviter's branding (service or application). */
export function invitationSender(ctx: AppContext, inviter: Caller, email: string): () => Promise<void> {
  return async () => {
    const branding = await ctx.brandingFor(inviter.namespace);
    // Nobody has proved this address: it gets no free text of the inviter's (their display name), only an address they proved.
    const who = inviter.emailVerified && inviter.email ? inviter.email : `A ${branding.senderName} user`;
    const message = renderEmail(branding, {
      subject: `${who} invited you to ${branding.senderName}`,
      heading: 'You have been invited',
      paragraphs: [
        `${who} wants to give you access to a door with ${branding.senderName}.`,
        `Create your account with this email address (${email}) to accept; the access shared with you is waiting there.`,
        'If you did not expect this message you can ignore it.',
      ],
    });
    await ctx.mailer.send({ to: email, ...message });
  };
}
