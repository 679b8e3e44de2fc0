import { unlockRefused } from '../alarms/conditions.js';
import { refusalError, type Allowed, type Denied } from '../access/member-policy.js';
import { recordAuditNow } from '../audit/record.js';
import type { AuditClient } from '../audit/log-format.js';
import type { AuditType } from '../audit/types.js';
import type { AppContext } from '../context.js';
import { inTransaction, type UnitOfWork } from '../db/transaction.js';
import type { AppError } from '../errors/catalogue.js';

/**
 * What a signed operation comes to: allowed, or refused. A refusal is a value carrying the error the
 * caller is answered with (its status, code and message, which is also the audit entry's reason)
 * and the entry that records it; the execute endpoint records it in one place (recordRefusal,
 * decisions §4 "every decision is audited", issue 15) and answers with its error. A request that is
 * malformed (400, 415), names nothing the caller may see (404) or repeats a used token (409
 * jti_reused) is no refusal: it is thrown, and not audited.
 */

export interface RefusalFacts {
  lockId: string;
  type: AuditType;
  actorUserId: string;
  subjectUserId?: string | null;
  details?: Record<string, unknown>;
  client?: AuditClient;
}

export interface Refusal {
  allowed: false;
  error: AppError;
  /** The entry that records it; absent when there is nothing to audit it as (an operation of no known type). */
  audit?: RefusalFacts;
  /** The lock gave no reply in time (504): the entry reads "<attempt>: no reply in time", since the lock may still act. */
  noReply?: boolean;
}

export type OperationDecision = Allowed | Refusal;

export const ALLOWED: Allowed = { allowed: true };

export function refused(error: AppError, audit: RefusalFacts | undefined, noReply = false): Refusal {
  return audit === undefined ? { allowed: false, error, noReply } : { allowed: false, error, audit, noReply };
}

/** A policy's refusal (src/access/member-policy.ts, src/sharing/policy.ts), answered with its AppError. */
export function deniedBy(denied: Denied, audit: RefusalFacts | undefined): Refusal {
  return refused(refusalError(denied), audit);
}

/** Records a refusal: an audit entry in a transaction of its own, since nothing else of the request is kept. */
export async function recordRefusal(ctx: AppContext, refusal: Refusal): Promise<void> {
  const facts = refusal.audit;
  if (facts === undefined) return;
  try {
    await recordAuditNow(ctx, { ...facts, rejected: true, message: refusal.error.message, noReply: refusal.noReply === true });
    // Repeated refused unlocks raise an alarm (src/alarms); no reply in time is no refusal.
    if (facts.type === 'DOOR_UNLOCK' && refusal.noReply !== true) await unlockRefused(ctx, facts.lockId);
  } catch (err) {
    // The refusal itself stands; losing its audit entry (or its alarm) must not turn it into a 500.
    ctx.logger.error({ err, lockId: facts.lockId, type: facts.type }, 'could not audit a refused operation');
  }
}

/** Marks the transaction of a refused change for rollback; caught only by inTransactionUnlessRefused. */
class RefusedChange extends Error {
  constructor(readonly refusal: Refusal) {
    super('refused');
  }
}

/**
 * Runs `decide` in one transaction that commits only when it allows: a refusal rolls everything
 * back (the operation's token stays unused, decisions §4) and is returned.
 */
export async function inTransactionUnlessRefused(ctx: AppContext, decide: (uow: UnitOfWork) => Promise<OperationDecision>): Promise<OperationDecision> {
  try {
    return await inTransaction(ctx.db, ctx.logger, async (uow) => {
      const decision = await decide(uow);
      if (!decision.allowed) throw new RefusedChange(decision);
      return decision;
    });
  } catch (err) {
    if (err instanceof RefusedChange) return err.refusal;
    throw err;
  }
}

/**
 * What an operation whose token was refused before it could be trusted (a signature that does not
 * verify, another member's token, an expired one) tried to do, read from its unverified payload
 * only to name the entry: a lock or unlock, a share, a revocation or a settings change; undefined
 * for payloads that name no known operation. Nothing else of it is kept.
 */
export function attemptedType(payload: Record<string, unknown>): AuditType | undefined {
  const operation = payload.operation as { type?: unknown; locked?: unknown } | null | undefined;
  switch (operation?.type) {
    case 'MUTATE_LOCK': return operation.locked === true ? 'DOOR_LOCK' : 'DOOR_UNLOCK';
    case 'ADD_USER': case 'BATCH_ADD_USER': return 'LOCK_SHARED';
    case 'REMOVE_USER': return 'LOCK_REVOKED';
    case 'MUTATE_SETTING': return 'SETTING_CHANGED';
    default: return undefined;
  }
}
