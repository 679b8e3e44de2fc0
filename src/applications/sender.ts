import type { Caller } from '../accounts/caller.js';
import { findUserById } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import { newSecretCode, sha256Hex } from '../crypto/random.js';
import { errors } from '../errors/catalogue.js';
import { DEFAULT_BRANDING, renderEmail } from '../messaging/branding.js';
import { updateApplicationRow, type ApplicationRow } from './queries.js';
import type { EmailPreferences } from './schemas.js';

/**
 * Proving an application's sender address (issue 27 point 2; docs/decisions.md): its branding
 * reaches mail only once the address it sends from has answered a code sent to it, asked for by
 * an owner whose own email is verified. The code's email is the service's fixed text: nothing the
 * application chose reaches an address that has not proved itself.
 */

const SENDER_CODE_TTL_SECONDS = 24 * 3600;

export function preferencesOf(application: Pick<ApplicationRow, 'email_preferences'>): EmailPreferences {
  return application.email_preferences ? (JSON.parse(application.email_preferences) as EmailPreferences) : {};
}

/** True while the preferences' sender address is the one proved. */
export function senderProved(application: Pick<ApplicationRow, 'email_preferences' | 'sender_verified_email'>): boolean {
  const sender = preferencesOf(application).senderEmail;
  return sender !== undefined && application.sender_verified_email !== null && application.sender_verified_email.toLowerCase() === sender.toLowerCase();
}

/** POST /platform/application/{id}/sender/verify: a code to the sender address (400 without one; 403 for an owner whose email is unverified). */
export async function sendSenderCode(ctx: AppContext, caller: Caller, application: ApplicationRow): Promise<void> {
  const owner = await findUserById(ctx.db.kysely, caller.userId);
  if (owner?.email_verified !== 1) throw errors.forbidden('verify your own email before proving a sender address');
  const sender = preferencesOf(application).senderEmail;
  if (sender === undefined) throw errors.validation('the application has no emailPreferences.senderEmail to verify');
  await ctx.limits.verificationPerUser.consume(caller.userId);
  const code = newSecretCode();
  await updateApplicationRow(ctx.db.kysely, application.id, { sender_code_hash: sha256Hex(code), sender_code_email: sender, sender_code_expires_at: ctx.now() + SENDER_CODE_TTL_SECONDS });
  const message = renderEmail(DEFAULT_BRANDING, {
    subject: `Confirm this address as a sender on ${DEFAULT_BRANDING.senderName}`,
    heading: 'Hello',
    paragraphs: [
      `Someone asked ${DEFAULT_BRANDING.senderName} to send email in an application's name from this address. If that was you or your organisation, give them the code below; it expires in 24 hours.`,
      `Sender code: ${code}`,
      'If you did not expect this message, ignore it: nothing is sent from this address until the code is given.',
    ],
  });
  await ctx.mailer.send({ to: sender, ...message });
}

/** PUT /platform/application/{id}/sender/verify?code=: the code proves the address it was sent to (400 when wrong, used, expired or no longer the sender). */
export async function confirmSender(ctx: AppContext, application: ApplicationRow, code: string): Promise<void> {
  const pending = application.sender_code_hash !== null && application.sender_code_expires_at !== null && application.sender_code_expires_at > ctx.now();
  const current = preferencesOf(application).senderEmail;
  if (!pending || application.sender_code_hash !== sha256Hex(code) || current === undefined || application.sender_code_email?.toLowerCase() !== current.toLowerCase()) {
    throw errors.badRequest('sender code is invalid, used or expired');
  }
  await updateApplicationRow(ctx.db.kysely, application.id, { sender_verified_email: current, sender_code_hash: null, sender_code_email: null, sender_code_expires_at: null, updated: ctx.now() });
}
