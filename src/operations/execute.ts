import type { AppContext } from '../context.js';
import { parseLegacyPublicKey, type LegacyKeyReader } from '../crypto/operation-token.js';
import { addUser, shareAll } from './add-user.js';
import { mutateLock } from './mutate-lock.js';
import { mutateSetting } from './mutate-setting.js';
import { recordRefusal, type OperationDecision, type Refusal } from './refusals.js';
import { enqueueOperation, shouldQueue, type QueuedOperation } from './queue.js';
import { removeUsers } from './remove-user.js';
import { pruneUsedTokens, shouldPrune } from './replay.js';
import { verifyOperation, type ExecuteRequest, type VerifiedOperation } from './verify.js';

/**
 * POST /device/{lockId}/execute (decisions §4): a member's signed operation, verified
 * (src/operations/verify.ts), then carried out by the module of its kind, which decides whether it
 * is allowed (403, audited) and consumes the token (409 when used before). A refusal, from either,
 * is recorded here and answered with its error. An operation whose `exp` is more than a minute away
 * is queued for the lock instead (src/operations/queue.ts): its status is returned, for a 202.
 */
export async function executeOperation(ctx: AppContext, request: ExecuteRequest, readLegacyKey: LegacyKeyReader = parseLegacyPublicKey): Promise<QueuedOperation | undefined> {
  const verified = await verifyOperation(ctx, request, readLegacyKey);
  if (!isRefusal(verified) && shouldQueue(verified)) return enqueueOperation(ctx, verified);
  const decision = isRefusal(verified) ? verified : await carryOut(ctx, verified);
  if (decision.allowed) return undefined;
  await recordRefusal(ctx, decision);
  throw decision.error;
}

function isRefusal(verified: VerifiedOperation | Refusal): verified is Refusal {
  return 'error' in verified;
}

/** Carries out a verified operation by the module of its kind: at once, or when it comes out of the lock's queue. */
export async function carryOut(ctx: AppContext, op: VerifiedOperation): Promise<OperationDecision> {
  if (shouldPrune()) await pruneUsedTokens(ctx.db.kysely, op.now);
  const { operation } = op.claims;
  switch (operation.type) {
    case 'MUTATE_LOCK': return mutateLock(ctx, op, operation);
    case 'ADD_USER': return addUser(ctx, op, operation);
    case 'BATCH_ADD_USER': return shareAll(ctx, op, operation.users);
    case 'REMOVE_USER': return removeUsers(ctx, op, operation);
    case 'MUTATE_SETTING': return mutateSetting(ctx, op, operation);
  }
}
