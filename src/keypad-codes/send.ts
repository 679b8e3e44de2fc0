import { findUserByEmail, findUserById } from '../accounts/queries.js';
import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { sameSecret } from '../crypto/compare.js';
import { errors } from '../errors/catalogue.js';
import { sealContext } from './digits.js';
import { codeViews } from './reads.js';
import { administeredLocks, codeLocksOf, codeMailDoors, findCode } from './queries.js';
import { codeTravels } from './policy.js';
import { composeCodeMail } from './mail.js';

/** How long after creating a code its creator may have it emailed to its holder (seconds). */
export const SEND_WINDOW_SECONDS = 3600;

/**
 * POST /lock-codes/{id}/send (issue 30 point 5, docs/keypad-codes.md "Sending a code to its
 * holder"): the code's creator, right after creating it, has it emailed to its holder. The digits
 * come from the creator, who holds them (typed, or shown that once) and must match the code's: the
 * service never opens a code's digits for anyone, so an administrator who never saw them cannot
 * have them mailed to an address of their choosing. The mail goes only to an address that proved
 * itself (a member's verified email; for a guest, an address a Latchkey account verified: another
 * is answered 204 all the same, unsent) and carries nothing its sender wrote: the digits, the code's terms in the service's words and the
 * door by the recipient's own name for it or its operator's.
 */
export async function sendCodeToHolder(ctx: AppContext, caller: Caller, codeId: string, body: { digits: string; email?: string | undefined }): Promise<void> {
  const db = ctx.db.kysely;
  const now = ctx.now();
  const code = await findCode(db, codeId);
  const rows = code ? await codeLocksOf(db, [codeId]) : [];
  const visible = await administeredLocks(db, caller.userId, now, rows.map((row) => row.lock_id));
  if (!code || visible.length === 0) throw errors.notFound('code');
  if (code.created_by !== caller.userId) throw errors.forbidden('only the administrator who created the code sends it to its holder');
  if (now - code.created > SEND_WINDOW_SECONDS) throw errors.conflict('a code is sent to its holder only within an hour of its creation: revoke it and create another');
  if (!sameSecret(body.digits, ctx.box.open(code.sealed, sealContext(codeId)).toString('utf8'))) throw errors.validation('digits: not the digits of this code');
  const view = (await codeViews(db, [codeId], visible, now))[0]!;
  const live = view.locks.filter((onLock) => codeTravels(onLock.status)).map((onLock) => onLock.lockId);
  if (live.length === 0) throw errors.conflict('the code opens no door any more');
  const recipient = await recipientOf(ctx, caller, code.holder_user_id, body.email);
  if (recipient === null) {
    // Answered as a sent one: the answer says nothing of whether the address has a verified account (docs/decisions.md).
    ctx.logger.info({ codeId }, 'keypad code not emailed: the guest\'s address has no verified account');
    return;
  }
  const doors = await codeMailDoors(db, live, recipient.userId);
  ctx.mailer.sendLater('keypad code email', () => composeCodeMail(ctx, { email: recipient.email, namespace: recipient.namespace }, view, doors, body.digits));
  ctx.logger.info({ codeId }, 'keypad code emailed to its holder');
}

/**
 * The holder's address that proved itself: a member's verified email (409 without one: the
 * administrator sees their members' addresses already); a guest's, an account's verified address,
 * else null: not sent, and not said (a guest's address is anyone's, the answer no oracle).
 */
async function recipientOf(ctx: AppContext, caller: Caller, holderUserId: string | null, email: string | undefined): Promise<{ userId: string; email: string; namespace: string } | null> {
  const db = ctx.db.kysely;
  if (holderUserId !== null) {
    if (email !== undefined) throw errors.validation("email: a member's code goes to the member's own verified address; leave it out");
    const member = await findUserById(db, holderUserId);
    if (!member || member.email === null || member.email_verified !== 1) throw errors.conflict('the holder has no verified email address: give them the code yourself');
    return { userId: member.id, email: member.email, namespace: member.namespace };
  }
  if (email === undefined) throw errors.validation("email: a guest's address is needed");
  const account = await findUserByEmail(db, caller.namespace, email);
  if (!account || account.email === null || account.email_verified !== 1) return null;
  return { userId: account.id, email: account.email, namespace: account.namespace };
}
