import { canChangeSettings } from '../access/member-policy.js';
import type { AppContext } from '../context.js';
import { inTransaction } from '../db/transaction.js';
import { updateLockSettings } from '../locks/settings.js';
import type { MutateSettingOperation } from './operation-schemas.js';
import { ALLOWED, deniedBy, type OperationDecision } from './refusals.js';
import { consumeOperationToken } from './replay.js';
import type { VerifiedOperation } from './verify.js';

/**
 * MUTATE_SETTING (decisions §4): ADMIN only. Stored at once and forwarded to the lock by the config
 * sync; the token is consumed in the same transaction as the change. The audit trail has no event
 * type for settings, so a refusal is logged rather than audited.
 */
export async function mutateSetting(ctx: AppContext, op: VerifiedOperation, operation: MutateSettingOperation): Promise<OperationDecision> {
  const allowed = canChangeSettings(op.lock.member, op.now);
  if (!allowed.allowed) {
    ctx.logger.info({ lockId: op.lock.id, userId: op.caller.userId, reason: allowed.reason }, 'MUTATE_SETTING refused');
    return deniedBy(allowed, undefined);
  }
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    await consumeOperationToken(uow, op);
    await updateLockSettings(ctx, uow, {
      lockId: op.lock.id,
      actorUserId: op.caller.userId,
      ...(operation.unlockDuration === undefined ? {} : { unlockDuration: operation.unlockDuration }),
      ...(operation.unlockBetween === undefined ? {} : { unlockBetween: operation.unlockBetween }),
    });
  });
  return ALLOWED;
}
