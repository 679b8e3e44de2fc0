import type { Generated } from 'kysely';
import type { Flag } from '../accounts/tables.js';

/**
 * One row of a lock's append-only audit trail. `seq` is the global order (and the live event
 * id); `prev_hash`/`hash` chain the entries of one lock (see chain.ts). No foreign keys: the
 * trail outlives the locks and users it names.
 */
export interface AuditEntriesTable {
  seq: Generated<number>;
  id: string;
  lock_id: string;
  /** Unix seconds with fraction, as hashed. */
  timestamp: number;
  /** An AuditType. */
  type: string;
  actor_user_id: string | null;
  subject_user_id: string | null;
  rejected: Flag;
  message: string;
  /** JSON text, or null. */
  details: string | null;
  /** Hash of the lock's previous entry; GENESIS_HASH for its first. */
  prev_hash: string;
  hash: string;
}

export interface AuditTables {
  audit_entries: AuditEntriesTable;
}
