import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { decodeBase64Any } from '../crypto/base64.js';
import { assertUnixSeconds } from '../crypto/chain.js';
import { sameId } from '../crypto/operation-token.js';
import { sha256Hex } from '../crypto/random.js';
import { errors, isAppError, type AppError } from '../errors/catalogue.js';
import { parseOperation, type Operation } from './parse-operation.js';
import { LONE_SURROGATE } from '../db/json-parameter.js';

/**
 * The claims of a signed operation (decisions §4), checked by the service and by locks
 * (src/lock-edge/command-check.ts). Status codes:
 * - 400 for claims that are missing, of the wrong type or out of bounds (`sub` not this lock, a
 *   lifetime longer than allowed, a bad operation): the request itself is wrong. Thrown.
 * - 401 when the token is not valid *now*: expired, or `nbf`/`iat` in the future beyond the
 *   tolerance. Like an expired signature, the remedy is a fresh token (with a corrected clock,
 *   see GET /time), not a different request.
 * - 403 when `iss` is not the authenticated caller.
 * The 401s and the 403 refuse a token that cannot be trusted: readOperationClaims returns them as
 * values (the execute endpoint audits them), checkOperationClaims throws them.
 */

export interface OperationClaims<O = Operation> {
  /** The signing user's id. */
  iss: string;
  /** The lock's id. */
  sub: string;
  /** Unix seconds, fractions allowed. */
  iat: number;
  exp: number;
  nbf?: number;
  jti?: string;
  operation: O;
}

export const DEFAULT_TOLERANCE_SECONDS = 30;
/**
 * Longest `exp − iat` of a MUTATE_LOCK (plus the tolerance). Lock and unlock tokens are short-lived:
 * within a minute they are carried out at once (the spec's Limits); one whose `exp` is further away
 * is queued for the lock (issue 28 point 4, src/operations/queue.ts), for an hour at most.
 */
export const MUTATE_LOCK_MAX_LIFETIME_SECONDS = 3600;
/** Longest `exp − iat` of any other operation. */
export const MAX_OPERATION_LIFETIME_SECONDS = 30 * 24 * 3600;
const MAX_ID_BYTES = 1024;

const Id = Type.String({ minLength: 1, maxLength: MAX_ID_BYTES, description: `a non-empty string of at most ${MAX_ID_BYTES} bytes` });
const UnixSeconds = Type.Number({ description: 'Unix seconds' });

/** The registered claims of an operation token; `operation` is checked by parseOperation. */
const ClaimsSchema = Type.Object({ iss: Id, sub: Id, iat: UnixSeconds, exp: UnixSeconds, nbf: Type.Optional(UnixSeconds), jti: Type.Optional(Id) });
const checkClaims = TypeCompiler.Compile(ClaimsSchema);

function registeredClaims(payload: Record<string, unknown>): Static<typeof ClaimsSchema> {
  const claims = { iss: payload.iss, sub: payload.sub, iat: payload.iat, exp: payload.exp, nbf: payload.nbf, jti: payload.jti };
  for (const name of ['nbf', 'jti'] as const) if (claims[name] === undefined) delete claims[name];
  if (!checkClaims.Check(claims)) {
    const error = checkClaims.Errors(claims).First()!;
    throw errors.badRequest(`${error.path.slice(1)} must be ${(error.schema as { description?: string }).description ?? 'present'}`);
  }
  // maxLength counts characters; the bound is in bytes. Text a database stores as it is: no NUL, no half of a surrogate pair.
  for (const name of ['iss', 'sub', 'jti'] as const) {
    const value = claims[name];
    if (value !== undefined && Buffer.byteLength(value) > MAX_ID_BYTES) throw errors.badRequest(`${name} must be a non-empty string of at most ${MAX_ID_BYTES} bytes`);
    if (value !== undefined && (value.includes('\0') || LONE_SURROGATE.test(value))) throw errors.badRequest(`${name} must be text without NUL characters or lone surrogates`);
  }
  return claims;
}

export interface ClaimsOptions {
  lockId: string;
  callerUserId?: string;
  now: number;
  toleranceSeconds?: number;
}

/**
 * Validates the payload of a signed operation for lock `lockId` at `now` (Unix seconds):
 * `iss` a string (and the caller, when `callerUserId` is given), `sub` the lock, `exp` > now,
 * `nbf` (optional) and `iat` no later than now + tolerance, `exp − iat` (and `exp − now`) at most
 * an hour + tolerance for MUTATE_LOCK and 30 days otherwise, and a valid `operation`. Ids compare case-insensitively
 * (they are UUIDs). The claims, or the refusal (401, 403) of a token that cannot be trusted; a
 * malformed request (400) throws. See the top of this file.
 */
export function readOperationClaims(payload: Record<string, unknown>, options: ClaimsOptions): OperationClaims | AppError;
/** With `parse`, the operation of another family (keypad codes: src/operations/code-operations.ts). */
export function readOperationClaims<O extends { type: string }>(payload: Record<string, unknown>, options: ClaimsOptions, parse: (value: unknown) => O): OperationClaims<O> | AppError;
export function readOperationClaims(payload: Record<string, unknown>, options: ClaimsOptions, parse: (value: unknown) => { type: string } = parseOperation): OperationClaims<{ type: string }> | AppError {
  const { now } = options;
  assertUnixSeconds(now);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const { iss, sub, exp, iat, nbf, jti } = registeredClaims(payload);
  if (options.callerUserId !== undefined && !sameId(iss, options.callerUserId)) return errors.forbidden('iss must be the authenticated user');
  if (!sameId(sub, options.lockId)) throw errors.badRequest('sub must be the id of the lock in the path');
  const operation = parse(payload.operation);

  if (exp <= now) return errors.tokenExpired('operation token expired');
  if (nbf !== undefined && nbf > now + tolerance) return errors.tokenNotYetValid('operation token not yet valid (nbf)');
  // A future iat would stretch the lifetime bound below far past now.
  if (iat > now + tolerance) return errors.tokenNotYetValid('operation token issued in the future (iat)');
  const maxLifetime = operation.type === 'MUTATE_LOCK' ? MUTATE_LOCK_MAX_LIFETIME_SECONDS + tolerance : MAX_OPERATION_LIFETIME_SECONDS;
  if (exp - iat > maxLifetime) throw errors.badRequest(`exp - iat must be at most ${maxLifetime} seconds for ${operation.type}`);
  // iat may run ahead by the tolerance, which must not stretch a lock token past a minute from now.
  if (exp - now > maxLifetime) throw errors.badRequest(`exp must be at most ${maxLifetime} seconds from now for ${operation.type}`);
  if (exp < iat) throw errors.badRequest('exp must not be before iat');

  return { iss, sub, iat, exp, ...(nbf === undefined ? {} : { nbf }), ...(jti === undefined ? {} : { jti }), operation };
}

/** readOperationClaims, throwing a refusal (401, 403) too. */
export function checkOperationClaims(payload: Record<string, unknown>, options: ClaimsOptions): OperationClaims;
export function checkOperationClaims<O extends { type: string }>(payload: Record<string, unknown>, options: ClaimsOptions, parse: (value: unknown) => O): OperationClaims<O>;
export function checkOperationClaims(payload: Record<string, unknown>, options: ClaimsOptions, parse: (value: unknown) => { type: string } = parseOperation): OperationClaims<{ type: string }> {
  const claims = readOperationClaims(payload, options, parse);
  if (isAppError(claims)) throw claims;
  return claims;
}

/**
 * The key that marks a token as used (decisions §4 replay), scoped to its issuer so that two
 * senders who pick the same `jti` do not refuse each other: the issuer with the token's `jti`
 * when present, otherwise with the SHA-256 (hex) of the compact token. The signature segment is
 * re-encoded canonically (Base64URL, no padding) before hashing: the signature does not cover its
 * own encoding, so otherwise the same token re-sent with padding or the standard alphabet would
 * count as new. Stores scope it further per lock.
 */
export function replayKey(payload: Record<string, unknown>, compact: string, issuer: string): string {
  return `${issuer.toLowerCase()}:${tokenIdentity(payload, compact)}`;
}

function tokenIdentity(payload: Record<string, unknown>, compact: string): string {
  if (typeof payload.jti === 'string' && payload.jti !== '') return payload.jti;
  const lastDot = compact.lastIndexOf('.');
  const signature = decodeBase64Any(compact.slice(lastDot + 1));
  const canonical = signature === null ? compact : `${compact.slice(0, lastDot)}.${signature.toString('base64url')}`;
  return sha256Hex(canonical);
}
