import type { Generated } from 'kysely';

/** Signed operations already acted on (decisions §4 replay), kept until they expire. */
export interface UsedOperationTokensTable {
  lock_id: string;
  /** The token's jti, or the hash of its bytes (see replayKey). */
  replay_key: string;
  used_at: number;
  /** The token's exp: after it the token is refused anyway, so the row can go. */
  expires_at: number;
}

/** A signed operation queued for its lock (migration 0080, src/operations/queue.ts). */
export interface QueuedOperationsTable {
  seq: Generated<number>;
  /** Public (UUID v4): the caller reads the status with it. */
  id: string;
  lock_id: string;
  /** The caller who sent it (the token's `iss`). */
  user_id: string;
  /** The operation's type (MUTATE_LOCK, ADD_USER, …), for its status. */
  operation_type: string;
  /** The compact token exactly as received: verified again, and carried out, on delivery. */
  token: string;
  caller_ip: string;
  /** JSON of the caller's AuditClient userAgent, or null. */
  user_agent: string | null;
  /** A QueuedState. */
  state: string;
  created: number;
  /** The token's exp: past it the operation is dropped (EXPIRED). */
  expires_at: number;
  /** While DELIVERING: the claim of one instance ends then (another may take it over). */
  lease_until: number | null;
  finished_at: number | null;
  /** Of a REFUSED or EXPIRED operation: the error code and message the caller would have been answered. */
  error: string | null;
  error_message: string | null;
}

/** A lockdown as declared (migration 0072, src/operations/lockdown.ts): its LOCKDOWN token, verbatim. */
export interface LockdownsTable {
  /** The lockdownId the client chose. */
  id: string;
  declared_by: string;
  /** The token's `sub`: the lock, the site or the declaring user (all their locks). */
  scope: string;
  token: string;
  /** JSON array of user ids. */
  responders: string;
  quorum: number;
  created: number;
}

/** One administrator's LIFT_LOCKDOWN, verbatim (its `locks`, JSON, the locks it lifts). */
export interface LockdownLiftsTable {
  lockdown_id: string;
  user_id: string;
  token: string;
  locks: string;
  created: number;
}

/** The lockdown a lock is under (`lifted_at` null) or was last under. */
export interface LockdownLocksTable {
  lock_id: string;
  lockdown_id: string;
  lifted_at: number | null;
}

export interface ExecuteTables {
  lockdowns: LockdownsTable;
  lockdown_lifts: LockdownLiftsTable;
  lockdown_locks: LockdownLocksTable;
  used_operation_tokens: UsedOperationTokensTable;
  queued_operations: QueuedOperationsTable;
}
