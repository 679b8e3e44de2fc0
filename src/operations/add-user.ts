import { findUserById } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import type { UnitOfWork } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { tryAddMember } from '../sharing/enrolments.js';
import { canManageMembers } from '../sharing/policy.js';
import type { AddUserOperation, ShareOperation } from './operation-schemas.js';
import { ALLOWED, deniedBy, inTransactionUnlessRefused, type OperationDecision, type RefusalFacts } from './refusals.js';
import { consumeOperationToken } from './replay.js';
import type { VerifiedOperation } from './verify.js';

/**
 * ADD_USER (decisions §4): ADMIN only; the invitee must be a user of the caller's own namespace
 * (else 404). Stored at once and delivered to the lock by the config sync when it is online (store
 * and forward); the token is consumed in the same transaction as the change, so a refused change
 * leaves it unused. Sharing's own rules (src/sharing/enrolments.ts) may refuse it too (403, 409).
 */
export async function addUser(ctx: AppContext, op: VerifiedOperation, operation: AddUserOperation): Promise<OperationDecision> {
  return shareAll(ctx, op, [operation]);
}

/**
 * The shares of an ADD_USER or a BATCH_ADD_USER, all or none: ADMIN only (else 403), every
 * invitee a user of the caller's namespace (else 404, nothing shared), then each share in turn in
 * one transaction with the token's consumption; the first share sharing's rules refuse rolls
 * them all back and is the refusal, audited with that invitee as its subject.
 */
export async function shareAll(ctx: AppContext, op: VerifiedOperation, shares: readonly ShareOperation[]): Promise<OperationDecision> {
  const allowed = canManageMembers(op.lock.member, op.now);
  if (!allowed.allowed) return deniedBy(allowed, shareAudit(op, shares.length === 1 ? shares[0]! : null));
  for (const share of shares) await requireInvitee(ctx, op, share.user);
  return inTransactionUnlessRefused(ctx, async (uow) => {
    await consumeOperationToken(uow, op);
    for (const share of shares) {
      const shared = await addShare(ctx, uow, op, share);
      if (!shared.allowed) return deniedBy(shared, shareAudit(op, share));
    }
    return ALLOWED;
  });
}

/** The entry of a refused share: one invitee, or (refused before any was looked at) the batch. */
function shareAudit(op: VerifiedOperation, share: ShareOperation | null): RefusalFacts {
  return { lockId: op.lock.id, type: 'LOCK_SHARED', actorUserId: op.caller.userId, subjectUserId: share?.user ?? null, details: { role: share?.role ?? 'USER' }, client: op.client };
}

/** Users of another application are invisible to this caller: the same 404 as no user at all. */
async function requireInvitee(ctx: AppContext, op: VerifiedOperation, userId: string): Promise<void> {
  const invitee = await findUserById(ctx.db.kysely, userId);
  if (!invitee || invitee.namespace !== op.caller.namespace) throw errors.notFound('user');
}

function addShare(ctx: AppContext, uow: UnitOfWork, op: VerifiedOperation, share: ShareOperation) {
  return tryAddMember(ctx, uow, {
    lockId: op.lock.id,
    actorUserId: op.caller.userId,
    userId: share.user,
    client: op.client,
    ...(share.role === undefined ? {} : { role: share.role }),
    ...(share.start === undefined ? {} : { start: share.start }),
    ...(share.end === undefined ? {} : { end: share.end }),
    ...(share.schedule === undefined ? {} : { schedule: share.schedule }),
  });
}
