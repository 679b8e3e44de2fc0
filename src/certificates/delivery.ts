import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { renderEmail } from '../messaging/branding.js';
import type { TextChannel } from '../messaging/sms.js';

/** How a verification code reaches the user (spec: POST /auth/certificate/verify `method`). */
export const VERIFICATION_METHODS = ['EMAIL', 'TELEPHONE', 'SMS', 'WHATSAPP'] as const;
export type VerificationMethod = (typeof VERIFICATION_METHODS)[number];

export interface Recipient {
  method: VerificationMethod;
  address: string;
}

/**
 * Where to send the code: EMAIL to the account email; the text channels to the telephone of the
 * token, else of the account. Without a method, email when there is one, else SMS. 400 when the
 * chosen channel has no address.
 */
export function chooseRecipient(caller: Caller, account: { email: string | null; telephone: string | null }, method: VerificationMethod | undefined): Recipient {
  const email = account.email ?? caller.email;
  const telephone = caller.telephone ?? account.telephone;
  const chosen = method ?? (email ? 'EMAIL' : telephone ? 'SMS' : undefined);
  if (chosen === undefined) throw errors.badRequest('the account has neither an email nor a telephone number to send a code to');
  const address = chosen === 'EMAIL' ? email : telephone;
  if (!address) throw errors.badRequest(chosen === 'EMAIL' ? 'the account has no email address' : 'the account has no telephone number');
  return { method: chosen, address };
}

/** Sends the code through the recipient's channel, in the branding of the user's application. */
export async function sendVerificationCode(ctx: AppContext, namespace: string, recipient: Recipient, code: string, ttlSeconds: number): Promise<void> {
  const branding = await ctx.brandingFor(namespace);
  const minutes = Math.round(ttlSeconds / 60);
  const sentence = `Your ${branding.senderName} verification code is ${code}. It expires in ${minutes} minutes.`;
  if (recipient.method === 'EMAIL') {
    const message = renderEmail(branding, {
      subject: `Your ${branding.senderName} verification code`,
      heading: 'Confirm your new device',
      paragraphs: [sentence, 'If you did not ask for it, you can ignore this message: nothing changes without the code.'],
    });
    await ctx.mailer.send({ to: recipient.address, ...message });
    return;
  }
  await ctx.texts.send({ channel: recipient.method as TextChannel, to: recipient.address, text: sentence });
}
