import type { Denied } from '../access/member-policy.js';
import { refusalError } from '../access/member-policy.js';
import { recordAuditNow } from '../audit/record.js';
import type { AuditType } from '../audit/types.js';
import type { AppContext } from '../context.js';
import { isAppError } from '../errors/catalogue.js';

/**
 * Refused operations are audited too (decisions §4 "every decision is audited"), each in a
 * transaction of its own since nothing else of the request is kept.
 */

export interface RefusalFacts {
  lockId: string;
  type: AuditType;
  actorUserId: string;
  subjectUserId?: string | null;
  details?: Record<string, unknown>;
}

export async function auditRefusal(ctx: AppContext, facts: RefusalFacts, reason: string, noReply = false): Promise<void> {
  try {
    await recordAuditNow(ctx, { ...facts, rejected: true, message: reason, noReply });
  } catch (err) {
    // The refusal itself stands; losing its audit entry must not turn it into a 500.
    ctx.logger.error({ err, lockId: facts.lockId, type: facts.type }, 'could not audit a refused operation');
  }
}

/** Audits a policy refusal and returns the error to answer with. */
export async function refuse(ctx: AppContext, facts: RefusalFacts, denied: Denied): Promise<Error> {
  await auditRefusal(ctx, facts, denied.reason);
  return refusalError(denied);
}

/**
 * Runs `work`; a 403, 409, 503 or 504 it throws (a permission, a conflict, the lock offline or
 * silent) is audited as a refusal of `facts.type` before it goes on to the caller (a 504 as
 * "no reply in time": the lock may still act on it).
 */
export async function auditingRefusals<T>(ctx: AppContext, facts: RefusalFacts, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isAppError(err) && [403, 409, 503, 504].includes(err.status) && err.error !== 'jti_reused') {
      await auditRefusal(ctx, facts, err.message, err.status === 504);
    }
    throw err;
  }
}

/**
 * What an operation whose token was refused before it could be trusted (a signature that does not
 * verify, another member's token, an expired one) tried to do, read from its unverified payload
 * only to name the entry: a lock or unlock, a share or a revocation; undefined for settings
 * (no audit type) and for payloads that name no known operation. Nothing else of it is kept.
 */
export function attemptedType(payload: Record<string, unknown>): AuditType | undefined {
  const operation = payload.operation as { type?: unknown; locked?: unknown } | null | undefined;
  switch (operation?.type) {
    case 'MUTATE_LOCK': return operation.locked === true ? 'DOOR_LOCK' : 'DOOR_UNLOCK';
    case 'ADD_USER': return 'LOCK_SHARED';
    case 'REMOVE_USER': return 'LOCK_REVOKED';
    default: return undefined;
  }
}
