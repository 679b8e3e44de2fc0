import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { leaveEveryLock } from './enrolments.js';
import { hasHeldShares, holdInviteShares, releaseInviteShares, revokeDiscardedInvite } from './held-shares.js';

/**
 * What sharing does when an account changes (src/accounts/events.ts), inside the transaction of
 * the change: a pending invite's shares are held, released or revoked with it, and a deleted user
 * leaves every lock.
 */
export function sharingFollowsAccounts(ctx: AppContext): void {
  const events = ctx.accountEvents;
  events.on('registered', async (uow, { userId, tookOverInvite }) => {
    // Typing an address proves nothing: the shares of the invite taken over wait until the email is verified.
    if (tookOverInvite) await holdInviteShares(ctx, uow, userId);
  });
  events.on('inviteDiscarded', (uow, { inviteId, registrantId }) => revokeDiscardedInvite(ctx, uow, inviteId, registrantId));
  events.on('emailVerified', async (uow, { userId, callerUserId }) => {
    // With shares waiting, the code must come from that account itself (issue 15): whoever registered
    // someone else's address cannot have them released by the owner clicking the link. 403, and the
    // code stays unused (the transaction rolls back).
    if (callerUserId !== userId && (await hasHeldShares(uow.db, userId))) throw errors.signInRequired();
    await releaseInviteShares(ctx, uow, userId);
  });
  events.on('deleting', (uow, { user }) => leaveEveryLock(ctx, uow, user.id));
}
