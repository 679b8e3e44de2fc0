import { Type, type Static } from '@sinclair/typebox';
import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { newPublicId } from '../crypto/random.js';
import { inTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { readLockForOperation } from '../locks/queries.js';
import { canManageMembers } from '../sharing/policy.js';
import { findQueued, insertQueued, type QueuedRow } from './queue-queries.js';
import { consumeOperationToken } from './replay.js';
import type { VerifiedOperation } from './verify.js';

/**
 * Queued operations (issue 28 point 4; the official docs: "if a request expires in more than 60
 * seconds, a 202 is returned to indicate the request has been queued for the device"). A verified
 * operation whose `exp` is more than QUEUE_AFTER_SECONDS away is stored with its token consumed,
 * answered 202 with its status (and its address in Location), and carried out when its lock is
 * online (src/operations/queue-delivery.ts). What the docs leave open is in docs/decisions.md.
 */

/** An operation whose `exp` is further away than this is queued; nearer, it is carried out at once (or refused: 503 when the lock is offline). */
export const QUEUE_AFTER_SECONDS = 60;

/** The bus channel on which a queued operation is announced as `{ lockId }`: an instance that sees the lock online delivers it. */
export const OPERATION_QUEUE_CHANNEL = 'operation-queue';

export function shouldQueue(op: Pick<VerifiedOperation, 'claims' | 'now'>): boolean {
  return op.claims.exp - op.now > QUEUE_AFTER_SECONDS;
}

/** Stores `op` for its lock, consuming its token (409 `jti_reused` when it was used), and announces it after commit. */
export async function enqueueOperation(ctx: AppContext, op: VerifiedOperation): Promise<QueuedOperation> {
  const row = {
    id: newPublicId(),
    lock_id: op.lock.id,
    user_id: op.caller.userId,
    operation_type: op.claims.operation.type,
    token: op.compact,
    caller_ip: op.callerIp,
    user_agent: op.client.userAgent === null ? null : JSON.stringify(op.client.userAgent),
    state: 'QUEUED',
    created: op.now,
    expires_at: op.claims.exp,
    lease_until: null,
    finished_at: null,
    error: null,
    error_message: null,
  };
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    await consumeOperationToken(uow, op);
    await insertQueued(uow.db, row);
    uow.onCommit(() => ctx.bus.publish(OPERATION_QUEUE_CHANNEL, { lockId: op.lock.id }));
  });
  return presentQueued(row, op.now);
}

export const QueuedOperationSchema = Type.Object({
  id: Type.String({ description: 'the queued operation\'s id (UUID)' }),
  lockId: Type.String(),
  operation: Type.String({ description: 'the signed operation\'s type: MUTATE_LOCK, ADD_USER, BATCH_ADD_USER, REMOVE_USER, MUTATE_SETTING' }),
  status: Type.Union([Type.Literal('QUEUED'), Type.Literal('DELIVERING'), Type.Literal('DELIVERED'), Type.Literal('REFUSED'), Type.Literal('EXPIRED')], {
    description: 'QUEUED until the lock is online; DELIVERING while it is carried out; then DELIVERED, REFUSED (see error) or EXPIRED (its exp passed first)',
  }),
  created: Type.Number({ description: 'Unix seconds' }),
  expires: Type.Number({ description: 'Unix seconds: the token\'s exp' }),
  finished: Type.Union([Type.Number(), Type.Null()], { description: 'Unix seconds; null until it is delivered, refused or expired' }),
  error: Type.Union([Type.Object({ error: Type.String(), message: Type.String() }), Type.Null()], { description: 'why it was refused or dropped, as an immediate request would have been answered' }),
}, { description: 'A signed operation queued for its lock' });
export type QueuedOperation = Static<typeof QueuedOperationSchema>;

export function presentQueued(row: Pick<QueuedRow, 'id' | 'lock_id' | 'operation_type' | 'state' | 'created' | 'expires_at' | 'finished_at' | 'error' | 'error_message'>, now: number): QueuedOperation {
  // Waiting past its expiry: dropped on the next pass, never delivered.
  const status = row.state === 'QUEUED' && row.expires_at <= now ? 'EXPIRED' : row.state as QueuedOperation['status'];
  const error = row.error !== null ? { error: row.error, message: row.error_message ?? '' }
    : status === 'EXPIRED' ? { error: 'token_expired', message: 'the operation expired before the lock came online' } : null;
  return {
    id: row.id, lockId: row.lock_id, operation: row.operation_type, status,
    created: Number(row.created), expires: Number(row.expires_at), finished: row.finished_at === null ? null : Number(row.finished_at), error,
  };
}

/** GET /device/{lockId}/operations/{operationId}: the caller who sent it, or an active ADMIN of the lock; anyone else: 404. */
export async function readQueuedOperation(ctx: AppContext, caller: Caller, lockId: string, operationId: string): Promise<QueuedOperation> {
  const row = await findQueued(ctx.db.kysely, operationId);
  if (row === undefined || row.lock_id !== lockId) throw errors.notFound('operation');
  const now = ctx.now();
  if (row.user_id !== caller.userId) {
    const lock = await readLockForOperation(ctx.db, lockId, caller.userId);
    if (lock === undefined || !canManageMembers(lock.member, now).allowed) throw errors.notFound('operation');
  }
  return presentQueued(row, now);
}
