import { refusalError } from '../access/member-policy.js';
import type { Caller } from '../accounts/caller.js';
import type { AuditClient } from '../audit/log-format.js';
import type { AppContext } from '../context.js';
import { checkOperationSignature, parseLegacyPublicKey } from '../crypto/operation-token.js';
import { errors, isAppError, type AppError } from '../errors/catalogue.js';
import { isUuid } from '../ids/path-ids.js';
import { decodeOperationToken } from '../operations/body.js';
import { readOperationClaims, replayKey, type OperationClaims } from '../operations/claims.js';
import { parseCodeOperation, type CodeOperation } from '../operations/code-operations.js';
import { recordRefusal, refused } from '../operations/refusals.js';
import { canManageCodes } from './policy.js';
import { findEnrolment, type Enrolled } from './queries.js';

/**
 * The signed operations of a codes request (ADD_CODE, REMOVE_CODE: src/operations/code-operations.ts),
 * one per lock, checked as POST /device/{id}/execute checks a share: 404 unless the caller is a
 * member of the token's lock (`sub`), 400 malformed, 401 a signature or lifetime that fails, 403
 * a token of someone else or a caller who is not an active ADMIN of the lock. The 401s and 403s
 * are audited as the caller's refused attempt (CODE_ADDED / CODE_REMOVED, rejected).
 */

export interface VerifiedCodeToken<O extends CodeOperation = CodeOperation> {
  lockId: string;
  claims: OperationClaims<O>;
  /** The compact token as received: what the lock verifies again. */
  compact: string;
  replayKey: string;
  /** The caller's enrolment on the lock (an active ADMIN). */
  actor: Enrolled;
}

/** The lock a token names: its `sub`, a lock id, before anything is trusted. */
function subjectLock(payload: Record<string, unknown>): string {
  const sub = payload.sub;
  if (typeof sub !== 'string' || !isUuid(sub)) throw errors.badRequest('sub must be the id of a lock');
  return sub.toLowerCase();
}

async function refuse(ctx: AppContext, caller: Caller, lockId: string, type: CodeOperation['type'] | undefined, error: AppError, client: AuditClient): Promise<never> {
  const auditType = type === 'REMOVE_CODE' ? 'CODE_REMOVED' : 'CODE_ADDED';
  await recordRefusal(ctx, refused(error, { lockId, type: auditType, actorUserId: caller.userId, client }));
  throw error;
}

function attemptedType(payload: Record<string, unknown>): CodeOperation['type'] | undefined {
  const type = (payload.operation as { type?: unknown } | null | undefined)?.type;
  return type === 'ADD_CODE' || type === 'REMOVE_CODE' ? type : undefined;
}

/** Checks one token of the request; `want` is the operation the endpoint takes. */
export async function verifyCodeToken<T extends CodeOperation['type']>(
  ctx: AppContext,
  caller: Caller,
  compact: string,
  want: T,
  client: AuditClient,
): Promise<VerifiedCodeToken<Extract<CodeOperation, { type: T }>>> {
  const decoded = decodeOperationToken(compact.trim());
  const lockId = subjectLock(decoded.payload);
  const actor = await findEnrolment(ctx.db.kysely, lockId, caller.userId);
  if (!actor) throw errors.notFound('lock');
  const now = ctx.now();
  const legacyPublicKey = decoded.header.alg === 'RS256' && caller.publicKey !== null ? (parseLegacyPublicKey(caller.publicKey) ?? undefined) : undefined;
  const signer = await checkOperationSignature(decoded, { legacyPublicKey, trustedRoot: ctx.pki.anchor, now });
  const type = attemptedType(decoded.payload);
  if (isAppError(signer)) return refuse(ctx, caller, lockId, type, signer, client);
  const claims = readOperationClaims(decoded.payload, { lockId, callerUserId: caller.userId, now }, parseCodeOperation);
  if (isAppError(claims)) return refuse(ctx, caller, lockId, type, claims, client);
  if (claims.operation.type !== want) throw errors.validation(`operation.type must be ${want}`);
  const allowed = canManageCodes(actor, now);
  if (!allowed.allowed) return refuse(ctx, caller, lockId, claims.operation.type, refusalError(allowed), client);
  return { lockId, claims: claims as OperationClaims<Extract<CodeOperation, { type: T }>>, compact: compact.trim(), replayKey: replayKey(decoded.payload, compact.trim(), claims.iss), actor };
}

/** Every token of a request, one lock each (a lock twice is a 400), all of operation `want`. */
export async function verifyCodeTokens<T extends CodeOperation['type']>(ctx: AppContext, caller: Caller, tokens: readonly string[], want: T, client: AuditClient) {
  await ctx.limits.executePerUser.consume(caller.userId);
  const verified: Array<VerifiedCodeToken<Extract<CodeOperation, { type: T }>>> = [];
  for (const token of tokens) {
    const one = await verifyCodeToken(ctx, caller, token, want, client);
    if (verified.some((other) => other.lockId === one.lockId)) throw errors.validation('tokens: one token per lock');
    verified.push(one);
  }
  return verified;
}
