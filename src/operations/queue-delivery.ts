import { callerFromUser } from '../accounts/caller.js';
import { findUserById } from '../accounts/queries.js';
import type { AuditClient } from '../audit/log-format.js';
import type { AppContext } from '../context.js';
import { TurnTimer } from '../db/turns.js';
import { cachedLegacyKeyReader, type LegacyKeyReader } from '../crypto/operation-token.js';
import { errors, isAppError, type AppError } from '../errors/catalogue.js';
import { KeyedQueue, QueueFullError } from '../lock-link/keyed-queue.js';
import { readLockForOperation } from '../locks/queries.js';
import { decodeOperationToken } from './body.js';
import { carryOut } from './execute.js';
import { OPERATION_QUEUE_CHANNEL } from './queue.js';
import { claimExpired, claimNext, finishQueued, hasOpenQueued, locksWithExpired, locksWithQueued, releaseQueued, type QueuedRow } from './queue-queries.js';
import { attemptedType, recordRefusal, refused, type OperationDecision, type Refusal } from './refusals.js';
import { verifyCompact } from './verify.js';

/**
 * Delivery of queued operations (issue 28 point 4). A pass over one lock drops what expired
 * (audited as refused: "expired before the lock came online"), then, while the lock is online,
 * claims its oldest waiting operation, verifies its token again at the service's time (the sender
 * still a member, the signature and certificate still valid, `exp` not passed) and carries it out
 * exactly as POST /device/{id}/execute would have (src/operations/execute.ts): allowed or refused,
 * each outcome audited and kept for its status. A lock gone offline meanwhile puts the operation
 * back. Passes run when the lock comes online (the lock link's presence), when an operation is
 * queued (the bus: any instance that sees the lock online) and on a sweep; the claims
 * (queue-queries.ts) make one instance deliver a lock's operations, one at a time, in order.
 */

/** The longest a claim outlives the lock's reply timeout: past it another instance may take the operation over. */
const LEASE_MARGIN_SECONDS = 60;
/** Locks looked at per sweep. */
const SWEEP_PAGE = 500;

/** The cluster's turns to sweep the queue (src/db/turns.ts), with an external broker: delivering what waits, and expiring what is due. */
export const QUEUE_SWEEP_TURN = 'operation-queue-sweep';
export const QUEUE_EXPIRY_TURN = 'operation-queue-expiry';

type Outcome = 'done' | 'offline';

export class QueueDelivery {
  /** One pass per lock at a time; a second waits, further ones are redundant (the waiting pass sees their work). */
  private readonly passes = new KeyedQueue(2);
  private readonly readLegacyKey = cachedLegacyKeyReader();
  private readonly unsubscribe: () => void;
  private stopped = false;
  /**
   * With an external broker one instance sweeps for the cluster (issue 33 point 2): every instance
   * hears every lock's presence there, so the holder of the turn can deliver to any lock online. With
   * the embedded broker each instance sweeps: its locks are online on it alone. Expiry needs no
   * broker, so it has a turn of its own, which an instance off the broker keeps taking: the
   * delivery's turn goes to a connected instance, and with the broker down for every instance
   * nothing can be delivered but what is due still expires (its refusal audited, its webhook sent).
   */
  private readonly delivery: TurnTimer;
  private readonly expiry: TurnTimer;

  constructor(private readonly ctx: AppContext) {
    this.unsubscribe = ctx.bus.subscribe(OPERATION_QUEUE_CHANNEL, (message) => {
      const lockId = (message as { lockId?: unknown } | null)?.lockId;
      if (typeof lockId === 'string') this.lockOnline(lockId);
    });
    const external = ctx.config.mqtt.kind === 'external';
    const intervalMs = ctx.config.lockOps.queueSweepSeconds * 1000;
    this.delivery = new TurnTimer(ctx, {
      turn: external ? QUEUE_SWEEP_TURN : null,
      intervalMs,
      what: 'the operation queue sweep',
      run: () => this.deliverWaiting(),
      // Off the broker, this instance sees every lock offline and would deliver nothing: another instance sweeps meanwhile.
      eligible: () => ctx.link.brokerStatus().connected,
    });
    this.expiry = new TurnTimer(ctx, { turn: external ? QUEUE_EXPIRY_TURN : null, intervalMs, what: 'the operation queue expiry', run: () => this.expireDue() });
    this.delivery.start();
    this.expiry.start();
  }

  /** Delivery sweeps this instance ran from its timer: what tells a test which instance sweeps. */
  get sweptHere(): number {
    return this.delivery.runsHere;
  }

  /** The lock is online (as this instance sees it): deliver what waits for it. */
  lockOnline(lockId: string): void {
    if (this.stopped || !this.ctx.link.isOnline(lockId)) return;
    this.pass(lockId);
  }

  /** The expired operations of every lock, refused (a lock's pass also delivers what waits for it if it is online here). */
  private async expireDue(): Promise<void> {
    for (const lockId of await locksWithExpired(this.ctx.db.kysely, this.ctx.now(), SWEEP_PAGE)) this.pass(lockId);
    await this.passes.drain();
  }

  /** What waits for the locks online here, delivered. */
  private async deliverWaiting(): Promise<void> {
    for (const lockId of await locksWithQueued(this.ctx.db.kysely, SWEEP_PAGE)) this.lockOnline(lockId);
    await this.passes.drain();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    await this.expiry.stop();
    await this.delivery.stop(() => this.passes.drain());
  }

  private pass(lockId: string): void {
    if (this.stopped) return;
    this.passes.run(lockId, () => deliverQueue(this.ctx, lockId, this.readLegacyKey)).catch((err: unknown) => {
      if (!(err instanceof QueueFullError)) this.ctx.logger.error({ err, lockId }, 'delivering queued operations failed');
    });
  }
}

/** One pass over `lockId`'s queue (see the top of this file). */
export async function deliverQueue(ctx: AppContext, lockId: string, readLegacyKey: LegacyKeyReader): Promise<void> {
  if (!(await hasOpenQueued(ctx.db, lockId))) return;
  const lease = () => ctx.now() + ctx.config.lockReplyTimeoutMs / 1000 + LEASE_MARGIN_SECONDS;
  for (let row = await claimExpired(ctx.db.kysely, lockId, ctx.now(), lease()); row; row = await claimExpired(ctx.db.kysely, lockId, ctx.now(), lease())) {
    await settle(ctx, row, refusalOf(row, expiredError()));
  }
  while (ctx.link.isOnline(lockId)) {
    const row = await claimNext(ctx.db.kysely, lockId, ctx.now(), lease());
    if (row === undefined) return;
    let outcome: Outcome;
    try {
      outcome = await deliverOne(ctx, row, readLegacyKey);
    } catch (err) {
      await releaseQueued(ctx.db.kysely, row);
      throw err;
    }
    if (outcome === 'offline') return;
  }
}

async function deliverOne(ctx: AppContext, row: QueuedRow, readLegacyKey: LegacyKeyReader): Promise<Outcome> {
  if (row.expires_at <= ctx.now()) return settle(ctx, row, refusalOf(row, expiredError()));
  const user = await findUserById(ctx.db.kysely, row.user_id);
  const lock = user && (await readLockForOperation(ctx.db, row.lock_id, row.user_id));
  if (!user || !lock) return settle(ctx, row, refusalOf(row, errors.forbidden('the sender is no longer a member of the lock')));
  let decision: OperationDecision;
  try {
    const sent = { caller: callerFromUser(user, null, null), lock, compact: row.token, callerIp: row.caller_ip, client: clientOf(row) };
    const verified = await verifyCompact(ctx, sent, readLegacyKey, { id: row.id });
    decision = 'error' in verified ? verified : await carryOut(ctx, verified);
  } catch (err) {
    // What a request would have been answered with (an invitee no longer there: 404); audited, since someone asked for it.
    if (!isAppError(err)) throw err;
    decision = refusalOf(row, err);
  }
  if (decision.allowed) {
    await finishQueued(ctx.db.kysely, row, { state: 'DELIVERED', now: ctx.now() });
    return 'done';
  }
  if (decision.error.error === 'lock_offline') {
    await releaseQueued(ctx.db.kysely, row);
    return 'offline';
  }
  return settle(ctx, row, decision);
}

/** Records a refusal (its entry names the queued operation) and keeps it as the operation's outcome. */
async function settle(ctx: AppContext, row: QueuedRow, refusal: Refusal): Promise<'done'> {
  const expired = refusal.error.error === 'token_expired';
  const audit = refusal.audit && { ...refusal.audit, details: { ...refusal.audit.details, queuedOperationId: row.id } };
  await recordRefusal(ctx, { ...refusal, ...(audit === undefined ? {} : { audit }) });
  await finishQueued(ctx.db.kysely, row, { state: expired ? 'EXPIRED' : 'REFUSED', now: ctx.now(), error: { error: refusal.error.error, message: refusal.error.message } });
  return 'done';
}

const expiredError = (): AppError => errors.tokenExpired('the queued operation expired before the lock came online');

function clientOf(row: QueuedRow): AuditClient {
  return { actorIp: row.caller_ip, userAgent: row.user_agent === null ? null : JSON.parse(row.user_agent) as AuditClient['userAgent'] };
}

/** A refusal of the queued operation, audited as the sender's attempt of what it asked for. */
function refusalOf(row: QueuedRow, error: AppError): Refusal {
  let type;
  try {
    type = attemptedType(decodeOperationToken(row.token).payload);
  } catch {
    type = undefined;
  }
  return refused(error, type === undefined ? undefined : { lockId: row.lock_id, type, actorUserId: row.user_id, client: clientOf(row) });
}
