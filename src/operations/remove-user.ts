import type { AppContext } from '../context.js';
import { tryRemoveMembers } from '../sharing/enrolments.js';
import type { RemoveUserOperation } from './operation-schemas.js';
import { ALLOWED, deniedBy, inTransactionUnlessRefused, type OperationDecision } from './refusals.js';
import { consumeOperationToken } from './replay.js';
import type { VerifiedOperation } from './verify.js';

/**
 * REMOVE_USER (decisions §4): oneself as any member, others as ADMIN (else 403); the last ADMIN
 * cannot leave others behind (409). Stored at once and forwarded to the lock by the config sync;
 * the token is consumed in the same transaction, so a refused change leaves it unused.
 */
export async function removeUsers(ctx: AppContext, op: VerifiedOperation, operation: RemoveUserOperation): Promise<OperationDecision> {
  const only = operation.users.length === 1 ? operation.users[0]! : null;
  const audit = { lockId: op.lock.id, type: 'LOCK_REVOKED', actorUserId: op.caller.userId, subjectUserId: only, details: { users: operation.users }, client: op.client } as const;
  return inTransactionUnlessRefused(ctx, async (uow) => {
    await consumeOperationToken(uow, op);
    const removed = await tryRemoveMembers(ctx, uow, { lockId: op.lock.id, actorUserId: op.caller.userId, userIds: operation.users, client: op.client });
    return removed.allowed ? ALLOWED : deniedBy(removed, audit);
  });
}
