import type { KeyObject } from 'node:crypto';
import type { Caller } from '../accounts/caller.js';
import { findUserById } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import { checkOperationSignature, sameId, type DecodedOperationToken, type LegacyKeyReader } from '../crypto/operation-token.js';
import { errors, isAppError, type AppError } from '../errors/catalogue.js';
import { readLockForOperation, type OperationLock } from '../locks/queries.js';
import { secondsSince } from '../metrics/registry.js';
import { decodeOperationToken, extractCompactJws } from './body.js';
import { readOperationClaims, replayKey, type OperationClaims } from './claims.js';
import type { AuditClient } from '../audit/log-format.js';
import { attemptedType, refused, type Refusal } from './refusals.js';

/**
 * The verification of POST /device/{lockId}/execute (decisions §4), one step after another:
 * admission (the caller's rate limit, 429; 404 unless the caller is a member of the lock; the
 * lock's rate limit, 429) → body (400/415) → decode (400/401) → signature (401) → claims (400, 401,
 * 403 when `iss` is not the caller). A signature that does not verify and claims that cannot be
 * trusted now (401, 403: a member's forged, borrowed or expired token) are refusals, returned to
 * be audited as the caller's rejected attempt; everything else wrong with the request is thrown.
 */

export interface ExecuteRequest {
  caller: Caller;
  /** Lower-case UUID from the path. */
  lockId: string;
  body: Buffer | string;
  contentType: string | undefined;
  callerIp: string;
  /** What the entries it leads to keep of the caller's client (src/audit/client.ts). */
  client: AuditClient;
}

/** One verified signed operation on its way to being carried out. */
export interface VerifiedOperation {
  caller: Caller;
  /** What the operation needs of the lock, and the caller's enrolment on it (they are a member). */
  lock: OperationLock;
  claims: OperationClaims;
  /** The compact token exactly as received: what the lock verifies again. */
  compact: string;
  /** Its jti or the hash of its bytes (decisions §4 replay). */
  replayKey: string;
  /** The caller's address (request.ip: honours TRUST_PROXY). */
  callerIp: string;
  client: AuditClient;
  now: number;
  /** Set when it comes out of the lock's queue: its token was consumed when it was queued. */
  queued?: QueuedMark;
}

/** Which queued operation is being delivered. */
export interface QueuedMark {
  id: string;
}

/**
 * Limits before the costly verification, so junk counts too. The caller's own count first: it is
 * the same whatever lock id is sent, so it reveals nothing. The lock's only once membership is
 * known: a stranger can neither spend a lock's allowance nor tell from a 429 that it exists.
 */
async function admit(ctx: AppContext, caller: Caller, lockId: string): Promise<OperationLock> {
  await ctx.limits.executePerUser.consume(caller.userId);
  const lock = await readLockForOperation(ctx.db, lockId, caller.userId);
  if (!lock) throw errors.notFound('lock');
  await ctx.limits.executePerLock.consume(lockId);
  return lock;
}

/**
 * The RS256 key of the token's `iss` user, when the token asks for RS256 and the user has one.
 * The caller's own key came with the request (read with their session); another user's needs a
 * query, kept so that a valid token of someone else still answers 403 once its claims are checked.
 */
export async function legacyKeyFor(ctx: AppContext, caller: Caller, decoded: DecodedOperationToken, readKey: LegacyKeyReader): Promise<KeyObject | undefined> {
  const issuer = decoded.payload.iss;
  if (decoded.header.alg !== 'RS256' || typeof issuer !== 'string' || issuer.length > 64) return undefined;
  const stored = sameId(issuer, caller.userId) ? caller.publicKey : (await findUserById(ctx.db.kysely, issuer.toLowerCase()))?.public_key;
  return (stored && readKey(stored)) || undefined;
}

/** A signed operation of a caller on a lock they are a member of, its compact token extracted from the body. */
export interface SentOperation {
  caller: Caller;
  lock: OperationLock;
  compact: string;
  callerIp: string;
  client: AuditClient;
}

/** The refusal of a token that could not be trusted, recorded as an attempt by the caller when it names an operation to audit. */
function untrustedToken(sent: SentOperation, payload: Record<string, unknown>, error: AppError): Refusal {
  const type = attemptedType(payload);
  return refused(error, type === undefined ? undefined : { lockId: sent.lock.id, type, actorUserId: sent.caller.userId, client: sent.client });
}

export async function verifyOperation(ctx: AppContext, request: ExecuteRequest, readLegacyKey: LegacyKeyReader): Promise<VerifiedOperation | Refusal> {
  const { caller, lockId } = request;
  const lock = await admit(ctx, caller, lockId);
  const compact = extractCompactJws(request.body, request.contentType);
  return verifyCompact(ctx, { caller, lock, compact, callerIp: request.callerIp, client: request.client }, readLegacyKey);
}

/**
 * The token's own checks (decode, signature, claims) at the service's time now: those of a request
 * once admitted, and those of a queued operation again when it is delivered (src/operations/queue.ts).
 */
export async function verifyCompact(ctx: AppContext, sent: SentOperation, readLegacyKey: LegacyKeyReader, queued?: QueuedMark): Promise<VerifiedOperation | Refusal> {
  const { caller, lock, compact } = sent;
  const decoded = decodeOperationToken(compact);
  const now = ctx.now();
  const verifying = process.hrtime.bigint();
  const signer = await checkOperationSignature(decoded, { legacyPublicKey: await legacyKeyFor(ctx, caller, decoded, readLegacyKey), trustedRoot: ctx.pki.anchor, now });
  if (isAppError(signer)) return untrustedToken(sent, decoded.payload, signer);
  const claims = readOperationClaims(decoded.payload, { lockId: lock.id, callerUserId: caller.userId, now });
  if (isAppError(claims)) return untrustedToken(sent, decoded.payload, claims);
  ctx.metrics.unlockPhase.observe({ phase: 'verification' }, secondsSince(verifying));
  return {
    caller, lock, claims, compact, replayKey: replayKey(decoded.payload, compact, claims.iss), callerIp: sent.callerIp, client: sent.client, now,
    ...(queued === undefined ? {} : { queued }),
  };
}
