/** A keypad code (migration 0130): its holder, window, schedule and uses; the digits sealed. */
export interface KeypadCodesTable {
  /** Chosen by the administrator's client: the signed ADD_CODE names it. */
  id: string;
  created_by: string;
  /** A member of the code's locks, or null for a named guest. */
  holder_user_id: string | null;
  guest_name: string | null;
  /** The digits, sealed with the key-encryption key (context `keypad-code:{id}`). */
  sealed: string;
  /** How many digits. */
  length: number;
  starts_at: number | null;
  ends_at: number | null;
  /** JSON array of time requirements, or null. */
  schedule: string | null;
  max_uses: number | null;
  created: number;
  updated: number;
}

/** A code on one lock of its set. */
export interface KeypadCodeLocksTable {
  code_id: string;
  lock_id: string;
  /** Keyed digest of `{lockId}:{digits}` (SecretBox.digest): equal live codes on one lock are refused. */
  digest: string;
  /** The ADD_CODE compact JWS for this lock, as the administrator signed it. */
  token: string;
  /** The holder's lock_members.created when the code was granted: the code ends with that membership. */
  member_since: number | null;
  uses: number;
  last_used_at: number | null;
  removed_at: number | null;
  /** revoked | used_up */
  removed_reason: string | null;
  /** The lock's config version that carries this row's last change. */
  changed_version: number;
  /** Why the lock refused the code (its report), until a later change. */
  sync_error: string | null;
  created: number;
  updated: number;
}

/** What the service knows of a lock's keypad. */
export interface KeypadLocksTable {
  lock_id: string;
  /** The config version the lock last said it holds. */
  applied_version: number | null;
  /** Until when the lock said its keypad refuses entries (repeated wrong codes). */
  lockout_until: number | null;
  updated: number;
}

export interface KeypadTables {
  keypad_codes: KeypadCodesTable;
  keypad_code_locks: KeypadCodeLocksTable;
  keypad_locks: KeypadLocksTable;
}
