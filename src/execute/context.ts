import type { Caller } from '../accounts/caller.js';
import type { OperationLock } from '../locks/queries.js';
import type { OperationClaims } from './claims.js';

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
  now: number;
}
