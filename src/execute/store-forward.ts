import { canChangeSettings } from '../access/member-policy.js';
import { findUserById } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import { inTransaction, type UnitOfWork } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { addMember, removeMembers } from '../sharing/enrolments.js';
import { canManageMembers } from '../sharing/policy.js';
import { updateLockSettings } from '../locks/settings.js';
import type { AddUserOperation, MutateSettingOperation, RemoveUserOperation } from './claims.js';
import type { VerifiedOperation } from './context.js';
import { auditingRefusals, refuse } from './refusals.js';
import { consumeReplayKey } from './replay.js';

/**
 * The operations that change who may use a lock or how it behaves (decisions §4): stored at once
 * and delivered to the lock by the config sync when it is online (store and forward). The token
 * is consumed in the same transaction as the change, so a refused change leaves it unused.
 */

function consumeIn(uow: UnitOfWork, op: VerifiedOperation): Promise<void> {
  return consumeReplayKey(uow.db, uow.dialect, { lockId: op.lock.id, replayKey: op.replayKey, expiresAt: op.claims.exp, now: op.now });
}

/** ADD_USER: ADMIN only; the invitee must be a user of the caller's own namespace (else 404). */
export async function addUser(ctx: AppContext, op: VerifiedOperation, operation: AddUserOperation): Promise<void> {
  const facts = { lockId: op.lock.id, type: 'LOCK_SHARED', actorUserId: op.caller.userId, subjectUserId: operation.user, details: { role: operation.role ?? 'USER' } } as const;
  const decision = canManageMembers(op.lock.member, op.now);
  if (!decision.allowed) throw await refuse(ctx, facts, decision);
  const invitee = await findUserById(ctx.db.kysely, operation.user);
  // Users of another application are invisible to this caller: the same 404 as no user at all.
  if (!invitee || invitee.namespace !== op.caller.namespace) throw errors.notFound('user');
  await auditingRefusals(ctx, facts, () =>
    inTransaction(ctx.db, ctx.logger, async (uow) => {
      await consumeIn(uow, op);
      await addMember(ctx, uow, {
        lockId: op.lock.id,
        actorUserId: op.caller.userId,
        userId: invitee.id,
        ...(operation.role === undefined ? {} : { role: operation.role }),
        ...(operation.start === undefined ? {} : { start: operation.start }),
        ...(operation.end === undefined ? {} : { end: operation.end }),
      });
    }),
  );
}

/** REMOVE_USER: oneself as any member, others as ADMIN; the last ADMIN cannot leave others behind (409). */
export async function removeUsers(ctx: AppContext, op: VerifiedOperation, operation: RemoveUserOperation): Promise<void> {
  const only = operation.users.length === 1 ? operation.users[0]! : null;
  const facts = { lockId: op.lock.id, type: 'LOCK_REVOKED', actorUserId: op.caller.userId, subjectUserId: only, details: { users: operation.users } } as const;
  await auditingRefusals(ctx, facts, () =>
    inTransaction(ctx.db, ctx.logger, async (uow) => {
      await consumeIn(uow, op);
      await removeMembers(ctx, uow, { lockId: op.lock.id, actorUserId: op.caller.userId, userIds: operation.users });
    }),
  );
}

/**
 * MUTATE_SETTING: ADMIN only. The audit trail has no event type for settings, so a refusal is
 * logged rather than audited.
 */
export async function mutateSetting(ctx: AppContext, op: VerifiedOperation, operation: MutateSettingOperation): Promise<void> {
  const decision = canChangeSettings(op.lock.member, op.now);
  if (!decision.allowed) {
    ctx.logger.info({ lockId: op.lock.id, userId: op.caller.userId, reason: decision.reason }, 'MUTATE_SETTING refused');
    throw errors.forbidden(decision.reason);
  }
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    await consumeIn(uow, op);
    await updateLockSettings(ctx, uow, {
      lockId: op.lock.id,
      actorUserId: op.caller.userId,
      ...(operation.unlockDuration === undefined ? {} : { unlockDuration: operation.unlockDuration }),
      ...(operation.unlockBetween === undefined ? {} : { unlockBetween: operation.unlockBetween }),
    });
  });
}
