import { findUserById } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { tryAddMember } from '../sharing/enrolments.js';
import { canManageMembers } from '../sharing/policy.js';
import type { AddUserOperation } from './operation-schemas.js';
import { ALLOWED, deniedBy, inTransactionUnlessRefused, type OperationDecision } from './refusals.js';
import { consumeOperationToken } from './replay.js';
import type { VerifiedOperation } from './verify.js';

/**
 * ADD_USER (decisions §4): ADMIN only; the invitee must be a user of the caller's own namespace
 * (else 404). Stored at once and delivered to the lock by the config sync when it is online (store
 * and forward); the token is consumed in the same transaction as the change, so a refused change
 * leaves it unused. Sharing's own rules (src/sharing/enrolments.ts) may refuse it too (403, 409).
 */
export async function addUser(ctx: AppContext, op: VerifiedOperation, operation: AddUserOperation): Promise<OperationDecision> {
  const audit = { lockId: op.lock.id, type: 'LOCK_SHARED', actorUserId: op.caller.userId, subjectUserId: operation.user, details: { role: operation.role ?? 'USER' } } as const;
  const allowed = canManageMembers(op.lock.member, op.now);
  if (!allowed.allowed) return deniedBy(allowed, audit);
  const invitee = await findUserById(ctx.db.kysely, operation.user);
  // Users of another application are invisible to this caller: the same 404 as no user at all.
  if (!invitee || invitee.namespace !== op.caller.namespace) throw errors.notFound('user');
  return inTransactionUnlessRefused(ctx, async (uow) => {
    await consumeOperationToken(uow, op);
    const shared = await tryAddMember(ctx, uow, {
      lockId: op.lock.id,
      actorUserId: op.caller.userId,
      userId: invitee.id,
      ...(operation.role === undefined ? {} : { role: operation.role }),
      ...(operation.start === undefined ? {} : { start: operation.start }),
      ...(operation.end === undefined ? {} : { end: operation.end }),
    });
    return shared.allowed ? ALLOWED : deniedBy(shared, audit);
  });
}
