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
 * sync; the token is consumed in the same transaction as the change, which is audited as
 * SETTING_CHANGED (src/locks/settings.ts), a refusal too.
 */
export async function mutateSetting(ctx: AppContext, op: VerifiedOperation, operation: MutateSettingOperation): Promise<OperationDecision> {
  const allowed = canChangeSettings(op.lock.member, op.now);
  if (!allowed.allowed) return deniedBy(allowed, { lockId: op.lock.id, type: 'SETTING_CHANGED', actorUserId: op.caller.userId, client: op.client });
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    await consumeOperationToken(uow, op);
    await updateLockSettings(ctx, uow, {
      lockId: op.lock.id,
      actorUserId: op.caller.userId,
      client: op.client,
      ...(operation.unlockDuration === undefined ? {} : { unlockDuration: operation.unlockDuration }),
      ...(operation.unlockBetween === undefined ? {} : { unlockBetween: operation.unlockBetween }),
    });
  });
  return ALLOWED;
}
