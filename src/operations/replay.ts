import type { DialectName } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { prepareQuery } from '../db/prepared.js';
import type { Executor, UnitOfWork } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import type { VerifiedOperation } from './verify.js';
import type { AppContext } from '../context.js';
import { inGroupCommit } from '../db/group-commit.js';
import { beginCommand, type PendingCommand } from '../locks/command-life.js';

/**
 * The replay store of signed operations (decisions §4): a row per (lock, replay key) whose
 * primary key makes the second of two identical tokens fail, however close together they
 * arrive, on every instance sharing the database.
 */

/** Rows stay this long past the token's exp, to cover the clock tolerance of the claims check. */
const KEEP_AFTER_EXPIRY_SECONDS = 60;
/** One insert in this many also deletes expired rows, keeping the table small without a timer. */
const PRUNE_EVERY = 200;

export interface UsedToken {
  lockId: string;
  replayKey: string;
  /** The token's exp (Unix seconds). */
  expiresAt: number;
  now: number;
}

// Prepared: one per signed operation.
const insertUsedToken = prepareQuery<{ lockId: string; replayKey: string; usedAt: number; keepUntil: number }>((db, slot) =>
  db.insertInto('used_operation_tokens').values({ lock_id: slot.lockId, replay_key: slot.replayKey, used_at: slot.usedAt, expires_at: slot.keepUntil }));

/** Marks the token used; 409 `jti_reused` when it already was. Run it before acting on the token. */
export async function consumeReplayKey(db: Executor, dialect: DialectName, token: UsedToken): Promise<void> {
  try {
    await insertUsedToken.execute(db, dialect, { lockId: token.lockId, replayKey: token.replayKey, usedAt: token.now, keepUntil: token.expiresAt + KEEP_AFTER_EXPIRY_SECONDS });
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.jtiReused();
    throw err;
  }
}

/**
 * Marks as used a token acted on elsewhere: on a lock's LAN (device protocol 1.3), reported
 * afterwards, so the service path refuses it from then on. Already marked is fine (a report heard twice).
 */
export async function rememberReplayKey(db: Executor, token: UsedToken): Promise<void> {
  await db
    .insertInto('used_operation_tokens')
    .values({ lock_id: token.lockId, replay_key: token.replayKey, used_at: token.now, expires_at: token.expiresAt + KEEP_AFTER_EXPIRY_SECONDS })
    .onConflict((oc) => oc.columns(['lock_id', 'replay_key']).doNothing())
    .execute();
}

/**
 * Consumes a verified operation's token in the unit of work that acts on it (409 `jti_reused` when
 * it was used). A queued operation's was consumed when it was queued (src/operations/queue.ts).
 */
export async function consumeOperationToken(uow: Pick<UnitOfWork, 'db' | 'dialect'>, op: Pick<VerifiedOperation, 'lock' | 'replayKey' | 'claims' | 'now' | 'queued'>): Promise<void> {
  if (op.queued !== undefined) return;
  return consumeReplayKey(uow.db, uow.dialect, { lockId: op.lock.id, replayKey: op.replayKey, expiresAt: op.claims.exp, now: op.now });
}

/** Deletes rows of tokens that can no longer be accepted anyway. */
export async function pruneUsedTokens(db: Executor, now: number): Promise<void> {
  await db.deleteFrom('used_operation_tokens').where('expires_at', '<', now).execute();
}

export function shouldPrune(random: () => number = Math.random): boolean {
  return random() * PRUNE_EVERY < 1;
}

/**
 * Consumes the operation's token and begins its command (the marker) in one commit: on PostgreSQL
 * an item of the instance's batch of lock writes (src/locks/lock-writes.ts, one statement and
 * commit shared with the unlocks of the same moment), on SQLite a unit of its group commit;
 * 409 `jti_reused` when the token was used.
 */
export async function consumeAndBegin(ctx: Pick<AppContext, 'db' | 'logger' | 'lockWrites'>, op: Pick<VerifiedOperation, 'lock' | 'replayKey' | 'claims' | 'now' | 'queued'>, command: PendingCommand): Promise<void> {
  if (ctx.lockWrites === null || op.queued !== undefined) {
    return inGroupCommit(ctx.db, ctx.logger, async (uow) => {
      await consumeOperationToken(uow, op);
      await beginCommand(uow, command);
    });
  }
  const { outcome } = await ctx.lockWrites.write({
    kind: 'begin', lockId: op.lock.id, replayKey: op.replayKey, usedAt: op.now, keepUntil: op.claims.exp + KEEP_AFTER_EXPIRY_SECONDS,
    actorUserId: command.actorUserId, locked: command.targetLocked ? 1 : 0, until: command.until, commandId: command.commandId,
  });
  if (outcome === 'reused') throw errors.jtiReused();
}
