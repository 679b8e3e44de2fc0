import type { UnitOfWork } from '../db/transaction.js';
import type { UserRow } from './queries.js';

/**
 * What happens to accounts, announced to the features that keep something of a user's (sharing:
 * their shares and pending invites; locks: the configs that list their key; applications: the
 * tombstones of deleted users). Accounts import none of those features: the composition root
 * (src/context.ts) wires the listeners.
 *
 * Each event is announced inside the transaction that makes the change, not after its commit
 * (docs/decisions.md, "Rooms"): what a listener does commits or rolls back with the account's
 * change, and a listener may refuse it by throwing an AppError, which undoes all of it
 * (a code that releases held shares to someone else is refused and stays unused; the last ADMIN of
 * a lock others still use cannot delete their account). Side effects still go through
 * `uow.onCommit`.
 */
export interface AccountEventMap {
  /**
   * A direct registration: `userId` is the new account, or the pending invite a v1 (or acceptInvite) registration
   * took over (`tookOverInvite`, keeping the invite's id; its email is not proved yet).
   */
  registered: { userId: string; tookOverInvite: boolean };
  /** A forced registration discards the pending invite `inviteId` of its email; announced before the invite's row goes. */
  inviteDiscarded: { inviteId: string; registrantId: string };
  /** `userId` proved their email with a code, sent by `callerUserId` (undefined: nobody signed in). */
  emailVerified: { userId: string; callerUserId: string | undefined };
  /** `user` deletes their account; announced before the row (and what cascades from it) goes. */
  deleting: { user: UserRow };
  /** `userId` was given a legacy public key (a lock checks RS256 tokens against the key its config lists). */
  keyChanged: { userId: string };
}

export type AccountEventName = keyof AccountEventMap;
export type AccountListener<E extends AccountEventName> = (uow: UnitOfWork, event: AccountEventMap[E]) => Promise<void>;

type Listeners = { [E in AccountEventName]: Array<AccountListener<E>> };

/** The listeners of each account event, called one after another in the order they were added. */
export class AccountEvents {
  private readonly listeners: Listeners = { registered: [], inviteDiscarded: [], emailVerified: [], deleting: [], keyChanged: [] };

  on<E extends AccountEventName>(event: E, listener: AccountListener<E>): void {
    (this.listeners[event] as Array<AccountListener<E>>).push(listener);
  }

  async announce<E extends AccountEventName>(event: E, uow: UnitOfWork, facts: AccountEventMap[E]): Promise<void> {
    for (const listener of this.listeners[event] as Array<AccountListener<E>>) await listener(uow, facts);
  }
}
