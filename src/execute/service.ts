import type { KeyObject } from 'node:crypto';
import type { Caller } from '../accounts/caller.js';
import { findUserById } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import { secondsSince } from '../metrics/registry.js';
import { errors, isAppError } from '../errors/catalogue.js';
import { readLockForOperation } from '../locks/queries.js';
import { extractCompactJws } from './body.js';
import { checkOperationClaims, replayKey } from './claims.js';
import type { VerifiedOperation } from './context.js';
import { mutateLock } from './mutate-lock.js';
import { attemptedType, auditRefusal } from './refusals.js';
import { pruneUsedTokens, shouldPrune } from './replay.js';
import { addUser, mutateSetting, removeUsers } from './store-forward.js';
import {
  decodeOperationToken, parseLegacyPublicKey, sameId, verifyOperationSignature, type DecodedOperationToken, type LegacyKeyReader,
} from './token.js';

/**
 * POST /device/{lockId}/execute (decisions §4): a member's signed operation. In order: the caller's
 * rate limit (429); 404 unless the caller is a member of the lock; the lock's rate limit (429); the
 * body read (400/415); the token decoded and its signature verified (401); its claims checked
 * (400/401, 403 when iss is not the caller); the operation's own permissions (403, audited); the
 * token consumed (409 when used before); then the operation.
 */

export interface ExecuteRequest {
  caller: Caller;
  /** Lower-case UUID from the path. */
  lockId: string;
  body: Buffer | string;
  contentType: string | undefined;
  callerIp: string;
}

/**
 * The RS256 key of the token's `iss` user, when the token asks for RS256 and the user has one.
 * The caller's own key came with the request (read with their session); another user's needs a
 * query, kept so that a valid token of someone else still answers 403 once its claims are checked.
 */
async function legacyKeyFor(ctx: AppContext, caller: Caller, decoded: DecodedOperationToken, readKey: LegacyKeyReader): Promise<KeyObject | undefined> {
  const issuer = decoded.payload.iss;
  if (decoded.header.alg !== 'RS256' || typeof issuer !== 'string' || issuer.length > 64) return undefined;
  const stored = sameId(issuer, caller.userId) ? caller.publicKey : (await findUserById(ctx.db.kysely, issuer.toLowerCase()))?.public_key;
  return (stored && readKey(stored)) || undefined;
}

/**
 * Runs the token's checks; a 401 or 403 from them, a member's token refused (a signature that does
 * not verify, another member's token, an expired one), is audited as a rejected attempt by the
 * caller (decisions §4; issue 15). Floods are bounded by the execute limits counted before.
 */
async function auditingUntrusted<T>(ctx: AppContext, attempt: { lockId: string; caller: Caller; payload: Record<string, unknown> }, checks: () => Promise<T>): Promise<T> {
  try {
    return await checks();
  } catch (err) {
    const type = attemptedType(attempt.payload);
    if (type && isAppError(err) && (err.status === 401 || err.status === 403)) {
      await auditRefusal(ctx, { lockId: attempt.lockId, type, actorUserId: attempt.caller.userId }, err.message);
    }
    throw err;
  }
}

export async function executeOperation(ctx: AppContext, request: ExecuteRequest, readLegacyKey: LegacyKeyReader = parseLegacyPublicKey): Promise<void> {
  const { caller, lockId } = request;
  const { executePerUser, executePerLock } = ctx.limits;
  // Limits before the costly verification, so junk counts too. The caller's own count first: it is
  // the same whatever lock id is sent, so it reveals nothing. The lock's only once membership is
  // known: a stranger can neither spend a lock's allowance nor tell from a 429 that it exists.
  await executePerUser.consume(caller.userId);
  const lock = await readLockForOperation(ctx.db, lockId, caller.userId);
  if (!lock) throw errors.notFound('lock');
  await executePerLock.consume(lockId);
  const compact = extractCompactJws(request.body, request.contentType);
  const decoded = decodeOperationToken(compact);
  const now = ctx.now();
  const verifying = process.hrtime.bigint();
  const claims = await auditingUntrusted(ctx, { lockId, caller, payload: decoded.payload }, async () => {
    await verifyOperationSignature(decoded, { legacyPublicKey: await legacyKeyFor(ctx, caller, decoded, readLegacyKey), trustedRoot: ctx.pki.anchor, now });
    return checkOperationClaims(decoded.payload, { lockId, callerUserId: caller.userId, now });
  });
  ctx.metrics.unlockPhase.observe({ phase: 'verification' }, secondsSince(verifying));
  const op: VerifiedOperation = { caller, lock, claims, compact, replayKey: replayKey(decoded.payload, compact, claims.iss), callerIp: request.callerIp, now };

  if (shouldPrune()) await pruneUsedTokens(ctx.db.kysely, now);
  const { operation } = claims;
  switch (operation.type) {
    case 'MUTATE_LOCK': return mutateLock(ctx, op, operation);
    case 'ADD_USER': return addUser(ctx, op, operation);
    case 'REMOVE_USER': return removeUsers(ctx, op, operation);
    case 'MUTATE_SETTING': return mutateSetting(ctx, op, operation);
  }
}
