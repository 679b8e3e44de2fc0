import type { Caller } from '../accounts/caller.js';
import type { AuditClient } from '../audit/log-format.js';
import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import { checkOperationSignature, type LegacyKeyReader } from '../crypto/operation-token.js';
import { isUniqueViolation } from '../db/errors.js';
import { inTransaction, type UnitOfWork } from '../db/transaction.js';
import { errors, isAppError } from '../errors/catalogue.js';
import { configChanged } from '../locks/config-changes.js';
import { decodeOperationToken, extractCompactJws } from './body.js';
import { readOperationClaims, replayKey, type OperationClaims } from './claims.js';
import { parseLockdownOperation, type LiftLockdownOperation, type LockdownOperation } from './lockdown-operation.js';
import { activeLockdownsOf, findLockdown, liftsOf, markLifted, membershipsAmong, placeUnderLockdown } from './lockdown-queries.js';
import { consumeReplayKey } from './replay.js';
import { legacyKeyFor } from './verify.js';

/**
 * POST /lockdown (issue 31 point 3): an administrator's signed LOCKDOWN of one lock, a site, or all
 * their locks, and each administrator's signed LIFT_LOCKDOWN. Verified as every signed operation
 * is (signature 401, claims, the caller's own token 403), every lock named administered by the
 * caller now (404 for a lock they are not a member of, 403 for one they only use), the token used
 * once. The locks enforce it themselves from their config (src/lock-edge/lockdown.ts), which
 * carries the tokens verbatim; the service refuses the unlocks too (mutate-lock.ts). Each lock's
 * change is audited (LOCKDOWN_DECLARED, LOCKDOWN_LIFT_SIGNED, LOCKDOWN_LIFTED: on the live stream,
 * not in the SDK's logs). A lock is lifted once `quorum` distinct administrators' lifts name it.
 */

export interface LockdownRequest {
  caller: Caller;
  body: Buffer | string;
  contentType: string | undefined;
  client: AuditClient;
}

export interface LockdownOutcome {
  lockdownId: string;
  quorum: number;
  locks: Array<{ lockId: string; lifts: number; lifted: boolean }>;
}

export async function submitLockdown(ctx: AppContext, request: LockdownRequest, readLegacyKey: LegacyKeyReader): Promise<LockdownOutcome> {
  const { caller } = request;
  await ctx.limits.executePerUser.consume(caller.userId);
  const compact = extractCompactJws(request.body, request.contentType);
  const decoded = decodeOperationToken(compact);
  const now = ctx.now();
  const signer = await checkOperationSignature(decoded, { legacyPublicKey: await legacyKeyFor(ctx, caller, decoded, readLegacyKey), trustedRoot: ctx.pki.anchor, now });
  if (isAppError(signer)) throw signer;
  const sub = typeof decoded.payload.sub === 'string' ? decoded.payload.sub : '';
  const claims = readOperationClaims(decoded.payload, { lockId: sub, callerUserId: caller.userId, now }, parseLockdownOperation);
  if (isAppError(claims)) throw claims;
  const { operation } = claims;
  await assertAdministers(ctx, caller.userId, operation.locks, claims.sub.toLowerCase(), now);
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    await consumeReplayKey(uow.db, uow.dialect, { lockId: claims.sub.toLowerCase(), replayKey: replayKey(decoded.payload, compact, claims.iss), expiresAt: claims.exp, now });
    const facts = { uow, caller, client: request.client, now, compact };
    return operation.type === 'LOCKDOWN' ? declare(ctx, facts, claims as OperationClaims<LockdownOperation>) : lift(ctx, facts, operation);
  });
}

/** Every lock named is one the caller administers now; `sub` names the lock, its site, or the caller. */
async function assertAdministers(ctx: AppContext, userId: string, lockIds: string[], sub: string, now: number): Promise<void> {
  const rows = await membershipsAmong(ctx.db.kysely, userId, lockIds, now);
  if (rows.length !== lockIds.length) throw errors.notFound('lock');
  if (rows.some((row) => row.administers !== 1)) throw errors.forbidden('only an administrator of every lock named may lock it down or lift it');
  const scoped = sub === userId || (lockIds.length === 1 && lockIds[0] === sub) || rows.every((row) => row.site_id === sub);
  if (!scoped) throw errors.badRequest('sub must be the lock named, the site of every lock named, or the signer (all their locks)');
}

interface Facts {
  uow: UnitOfWork;
  caller: Caller;
  client: AuditClient;
  now: number;
  compact: string;
}

async function declare(ctx: AppContext, facts: Facts, claims: OperationClaims<LockdownOperation>): Promise<LockdownOutcome> {
  const { uow, caller, client, now } = facts;
  const { lockdownId, locks, responders, liftQuorum } = claims.operation;
  const held = await activeLockdownsOf(uow.db, locks);
  if (held.length > 0) throw errors.conflict(`lock ${held[0]!.lock_id} is already locked down: lift that lockdown first`);
  try {
    await uow.db
      .insertInto('lockdowns')
      .values({ id: lockdownId, declared_by: caller.userId, scope: claims.sub.toLowerCase(), token: facts.compact, responders: JSON.stringify(responders), quorum: liftQuorum, created: now })
      .execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.conflict('this lockdownId was used before: choose a new one');
    throw err;
  }
  // Every lock row first, then the audit trail (its tree head): the order every other writer takes them in, so no deadlock on PostgreSQL.
  for (const lockId of locks) {
    await placeUnderLockdown(uow.db, lockId, lockdownId);
    await configChanged(ctx, uow, lockId);
  }
  for (const lockId of locks) {
    await recordAudit(ctx, uow, {
      lockId,
      type: 'LOCKDOWN_DECLARED',
      actorUserId: caller.userId,
      message: `lockdown declared: unlocks refused except for ${responders.length} responder${responders.length === 1 ? '' : 's'}; lifting takes ${liftQuorum} administrator${liftQuorum === 1 ? '' : 's'}`,
      details: { lockdown: lockdownId, responders, quorum: liftQuorum },
      client,
    });
  }
  return { lockdownId, quorum: liftQuorum, locks: locks.map((lockId) => ({ lockId, lifts: 0, lifted: false })) };
}

async function lift(ctx: AppContext, facts: Facts, operation: LiftLockdownOperation): Promise<LockdownOutcome> {
  const { uow, caller, client, now } = facts;
  const lockdown = await findLockdown(uow.db, operation.lockdownId);
  if (!lockdown) throw errors.notFound('lockdown');
  const under = new Set((await activeLockdownsOf(uow.db, operation.locks)).filter((row) => row.lockdown_id === lockdown.id).map((row) => row.lock_id));
  const notUnder = operation.locks.find((lockId) => !under.has(lockId));
  if (notUnder !== undefined) throw errors.conflict(`lock ${notUnder} is not under this lockdown`);
  try {
    await uow.db.insertInto('lockdown_lifts').values({ lockdown_id: lockdown.id, user_id: caller.userId, token: facts.compact, locks: JSON.stringify(operation.locks), created: now }).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.conflict('you have signed a lift of this lockdown already: another administrator must sign');
    throw err;
  }
  const lifts = await liftsOf(uow.db, lockdown.id);
  const outcome: LockdownOutcome = { lockdownId: lockdown.id, quorum: lockdown.quorum, locks: [] };
  // The lift travels to the lock either way (the lock counts the signatures itself). Lock rows
  // before the audit trail, as every other writer takes them (no deadlock on PostgreSQL).
  for (const lockId of operation.locks) await configChanged(ctx, uow, lockId);
  for (const lockId of operation.locks) {
    const count = lifts.filter((row) => (JSON.parse(row.locks) as string[]).includes(lockId)).length;
    await recordAudit(ctx, uow, { lockId, type: 'LOCKDOWN_LIFT_SIGNED', actorUserId: caller.userId, message: `lockdown lift signed (${count} of ${lockdown.quorum})`, details: { lockdown: lockdown.id, lifts: count, quorum: lockdown.quorum }, client });
    const lifted = count >= lockdown.quorum && (await markLifted(uow.db, lockId, lockdown.id, now));
    if (lifted) await recordAudit(ctx, uow, { lockId, type: 'LOCKDOWN_LIFTED', actorUserId: caller.userId, message: 'lockdown lifted', details: { lockdown: lockdown.id, lifts: count, quorum: lockdown.quorum }, client });
    outcome.locks.push({ lockId, lifts: count, lifted: count >= lockdown.quorum });
  }
  return outcome;
}

