import type { AppContext } from '../context.js';
import { inTransaction } from '../db/transaction.js';
import type { Caller } from './caller.js';
import { accountWriter } from './live-sessions.js';
import { deleteUser, findUserById } from './queries.js';

/**
 * DELETE /account: `deleting` is announced (src/accounts/events.ts), on which the caller leaves
 * every lock as REMOVE_USER of themselves would (409 last_admin when they are the last ADMIN of a
 * lock others still use) and an application's user leaves a tombstone, so that the third party's
 * tokens issued until now do not recreate the account; then the account and everything it owns
 * goes (sessions, codes, keys: foreign keys cascade), all in one transaction: a refusal on any
 * lock leaves the account untouched.
 */
export async function deleteAccount(ctx: AppContext, caller: Caller): Promise<void> {
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const user = await findUserById(uow.db, caller.userId);
    if (user) await ctx.accountEvents.announce('deleting', uow, { user });
    // Its sessions go with the row: the next request with any of its tokens is a 401.
    await deleteUser(accountWriter(ctx, uow), caller.userId);
  });
}
