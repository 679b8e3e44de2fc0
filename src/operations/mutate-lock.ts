import { randomUUID } from 'node:crypto';
import { canUnlock } from '../access/member-policy.js';
import type { AppContext } from '../context.js';
import type { CommandResult } from '../lock-link/client.js';
import { isAppError, type AppError } from '../errors/catalogue.js';
import { abandonCommand, confirmCommand, markCommandLate, pendingCommand, type PendingCommand } from '../locks/command-life.js';
import { readPermittedAddresses, readUsageRequirements } from '../locks/json.js';
import { secondsSince } from '../metrics/registry.js';
import type { MutateLockOperation } from './operation-schemas.js';
import { ALLOWED, deniedBy, refused, type OperationDecision } from './refusals.js';
import { consumeAndBegin } from './replay.js';
import type { VerifiedOperation } from './verify.js';

/**
 * MUTATE_LOCK (decisions §4): any member inside their window, from a permitted address, meeting
 * the usage requirements (ADMINs exempt). The token is consumed, the lock row marked as waiting
 * for this user's command (so the state report it causes is not audited a second time without a
 * user), the command sent, and only the lock's confirmation makes it a 200 and a DOOR_UNLOCK /
 * DOOR_LOCK entry with the caller as actor. 503 offline, 504 no reply, 409 refused by the lock:
 * refusals, audited. The marker's life (begin, confirm, abandon) is src/locks/command-life.ts's.
 */
export async function mutateLock(ctx: AppContext, op: VerifiedOperation, operation: MutateLockOperation): Promise<OperationDecision> {
  const { lock, caller, now } = op;
  const commandId = randomUUID();
  const facts = { lockId: lock.id, type: operation.locked ? 'DOOR_LOCK' : 'DOOR_UNLOCK', actorUserId: caller.userId, details: { jti: op.claims.jti ?? null, commandId }, client: op.client } as const;
  const allowed = canUnlock({
    member: lock.member,
    requirements: readUsageRequirements(lock.usage_requirements),
    permittedAddresses: readPermittedAddresses(lock.permitted_addresses),
    callerIp: op.callerIp,
    location: operation.location ?? null,
    duration: operation.duration ?? null,
    unlockDuration: lock.unlock_time,
    now,
  });
  if (!allowed.allowed) return deniedBy(allowed, facts);
  // Under a lockdown only its responders unlock (the lock refuses the others itself too: src/lock-edge/lockdown.ts).
  if (!operation.locked) {
    const responders = lock.lockdownResponders;
    if (responders !== undefined && !responders.includes(caller.userId)) return deniedBy({ allowed: false, status: 403, reason: 'the lock is locked down: only its responders may unlock' }, facts);
  }

  const command = pendingCommand(lock.id, caller.userId, operation.locked, now, ctx.config.lockReplyTimeoutMs, commandId);
  // One commit for both writes (shared with concurrent unlocks on SQLite: src/db/group-commit.ts);
  // a replayed token (409) leaves the marker of the first alone.
  const writing = process.hrtime.bigint();
  await consumeAndBegin(ctx, op, command);
  const sending = process.hrtime.bigint();
  ctx.metrics.unlockPhase.observe({ phase: 'database' }, secondsSince(writing));

  const answer = await sendCommand(ctx, op, operation, command);
  if (!('carriedOut' in answer)) {
    // No reply is not no: the lock may still carry it out, attributed then to this user.
    if (answer.noReply) await markCommandLate(ctx, command);
    else await abandonCommand(ctx, command);
    return refused(answer.error, facts, answer.noReply);
  }
  ctx.metrics.unlockPhase.observe({ phase: 'lock' }, secondsSince(sending));
  // Only a change is stored; a state report that got here first already did it (or a later one: the reply's state then stays unstored).
  await confirmCommand(ctx, command, facts, answer.carriedOut.state?.ts);
  return ALLOWED;
}

/** What became of a command sent over the lock link. */
type LockAnswer = { carriedOut: CommandResult } | { error: AppError; noReply: boolean };

const carriedOut = (result: CommandResult): LockAnswer => ({ carriedOut: result });

/** Sends the command and waits for the lock; a fault rather than an answer (none expected) withdraws the marker all the same. */
async function sendCommand(ctx: AppContext, op: VerifiedOperation, operation: MutateLockOperation, command: PendingCommand): Promise<LockAnswer> {
  try {
    return await ctx.link.sendCommand(op.lock.id, op.compact, operation as unknown as Record<string, unknown>, command.commandId).then(carriedOut, notCarriedOut);
  } catch (fault) {
    await abandonCommand(ctx, command);
    throw fault;
  }
}

/**
 * The link's answer when the command was not carried out, as a value: LockLink.sendCommand rejects
 * with exactly these (src/lock-link/client.ts): errors.lockOffline() (503) at once when the lock is
 * not online, errors.lockRefused(reason) (409) when the lock says no, errors.lockTimeout() (504)
 * when no reply came in time, which alone leaves the outcome open. Anything else is a fault.
 */
function notCarriedOut(err: unknown): LockAnswer {
  if (!isAppError(err)) throw err;
  return { error: err, noReply: err.status === 504 };
}
