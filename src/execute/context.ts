import type { Caller } from '../accounts/caller.js';
import type { MemberLock } from '../locks/queries.js';
import type { OperationClaims } from './claims.js';

/** One verified signed operation on its way to being carried out. */
export interface VerifiedOperation {
  caller: Caller;
  /** The lock as the caller sees it (they are a member). */
  lock: MemberLock;
  claims: OperationClaims;
  /** The compact token exactly as received: what the lock verifies again. */
  compact: string;
  /** Its jti or the hash of its bytes (decisions §4 replay). */
  replayKey: string;
  /** The caller's address (request.ip: honours TRUST_PROXY). */
  callerIp: string;
  now: number;
}
