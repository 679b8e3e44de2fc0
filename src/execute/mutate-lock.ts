import { randomUUID } from 'node:crypto';
import { secondsSince } from '../metrics/registry.js';
import { canUnlock } from '../access/member-policy.js';
import type { AppContext } from '../context.js';
import { inGroupCommit } from '../db/group-commit.js';
import { isAppError } from '../errors/catalogue.js';
import { abandonCommand, beginCommand, confirmCommand, markCommandLate, pendingCommand } from '../locks/command-life.js';
import { readPermittedAddresses, readUsageRequirements } from '../locks/json.js';
import type { MutateLockOperation } from './claims.js';
import type { VerifiedOperation } from './context.js';
import { auditingRefusals, refuse } from './refusals.js';
import { consumeReplayKey } from './replay.js';

/**
 * MUTATE_LOCK (decisions §4): any member inside their window, from a permitted address, meeting
 * the usage requirements (ADMINs exempt). The token is consumed, the lock row marked as waiting
 * for this user's command (so the state report it causes is not audited a second time without a
 * user), the command sent, and only the lock's confirmation makes it a 200 and a DOOR_UNLOCK /
 * DOOR_LOCK entry with the caller as actor. 503 offline, 504 no reply, 409 refused by the lock.
 * The marker's life (begin, confirm, abandon) is src/locks/command-life.ts's.
 */
export async function mutateLock(ctx: AppContext, op: VerifiedOperation, operation: MutateLockOperation): Promise<void> {
  const { lock, caller, now } = op;
  const commandId = randomUUID();
  const facts = { lockId: lock.id, type: operation.locked ? 'DOOR_LOCK' : 'DOOR_UNLOCK', actorUserId: caller.userId, details: { jti: op.claims.jti ?? null, commandId } } as const;
  const decision = canUnlock({
    member: lock.member,
    requirements: readUsageRequirements(lock.usage_requirements),
    permittedAddresses: readPermittedAddresses(lock.permitted_addresses),
    callerIp: op.callerIp,
    location: operation.location ?? null,
    duration: operation.duration ?? null,
    unlockDuration: lock.unlock_time,
    now,
  });
  if (!decision.allowed) throw await refuse(ctx, facts, decision);

  const command = pendingCommand(lock.id, caller.userId, operation.locked, now, ctx.config.lockReplyTimeoutMs, commandId);
  // One commit for both writes (shared with concurrent unlocks on SQLite: src/db/group-commit.ts);
  // a replayed token (409) leaves the marker of the first alone.
  const writing = process.hrtime.bigint();
  await inGroupCommit(ctx.db, ctx.logger, async (uow) => {
    await consumeReplayKey(uow.db, uow.dialect, { lockId: lock.id, replayKey: op.replayKey, expiresAt: op.claims.exp, now });
    await beginCommand(uow, command);
  });
  const sending = process.hrtime.bigint();
  ctx.metrics.unlockPhase.observe({ phase: 'database' }, secondsSince(writing));

  try {
    await auditingRefusals(ctx, facts, () => ctx.link.sendCommand(lock.id, op.compact, operation as unknown as Record<string, unknown>, commandId));
  } catch (err) {
    // No reply is not no: the lock may still carry it out, attributed then to this user.
    if (isAppError(err) && err.status === 504) await markCommandLate(ctx, command);
    else await abandonCommand(ctx, command);
    throw err;
  }
  ctx.metrics.unlockPhase.observe({ phase: 'lock' }, secondsSince(sending));
  // Only a change is stored; a state report that got here first already did it.
  await confirmCommand(ctx, command, facts);
}
