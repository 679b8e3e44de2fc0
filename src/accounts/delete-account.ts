import { recordApplicationUserDeletion } from '../applications/app-users.js';
import type { AppContext } from '../context.js';
import { inTransaction } from '../db/transaction.js';
import { removeMembers } from '../locks/membership.js';
import { lockRowsForUpdate } from '../locks/queries.js';
import type { Caller } from './caller.js';
import { accountWriter } from './live-sessions.js';
import { DIRECT_NAMESPACE, deleteUser, findUserById } from './queries.js';

/**
 * DELETE /account: the caller leaves every lock as REMOVE_USER of themselves would (audited, the
 * lock's config pushed after commit, 409 last_admin when they are the last ADMIN of a lock others
 * still use), then the account and everything it owns goes (sessions, codes, keys: foreign keys
 * cascade), all in one transaction: a refusal on any lock leaves the account untouched. An
 * application's user leaves a tombstone, so that the third party's tokens issued until now do not
 * recreate the account.
 */
export async function deleteAccount(ctx: AppContext, caller: Caller): Promise<void> {
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    // In id order, so two transactions touching the same locks take their row locks in one order.
    const enrolments = await uow.db.selectFrom('lock_members').select('lock_id').where('user_id', '=', caller.userId).orderBy('lock_id').execute();
    // Every row lock before the first audit entry (the audit tree's head is taken then).
    await lockRowsForUpdate(uow, enrolments.map((row) => row.lock_id));
    for (const { lock_id: lockId } of enrolments) {
      await removeMembers(ctx, uow, { lockId, actorUserId: caller.userId, userIds: [caller.userId] });
    }
    const user = await findUserById(uow.db, caller.userId);
    if (user && user.namespace !== DIRECT_NAMESPACE && user.external_id !== null) {
      await recordApplicationUserDeletion(uow.db, user.namespace, user.external_id, ctx.now());
    }
    // Its sessions go with the row: the next request with any of its tokens is a 401.
    await deleteUser(accountWriter(ctx, uow), caller.userId);
  });
}
