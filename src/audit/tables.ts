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
  /**
   * The actor's and the subject's email and display name as their user rows read when the entry
   * was recorded (hashed from `hash_version` 2 on); entries older than migration 0014 read as of it.
   */
  actor_email: string | null;
  actor_display_name: string | null;
  subject_email: string | null;
  subject_display_name: string | null;
  /** The address of the actor's request, and the SDK user agent it named (hashed from `hash_version` 3 on); null before migration 0030 or without one. */
  actor_ip: string | null;
  user_agent_type: string | null;
  user_agent_version: string | null;
  rejected: Flag;
  message: string;
  /** JSON text, or null. */
  details: string | null;
  /** Hash of the lock's previous entry; GENESIS_HASH for its first. */
  prev_hash: string;
  hash: string;
  /** The preimage format `hash` was computed in (chain.ts): 1 before migration 0014, 2 before 0030, 3 since. */
  hash_version: Generated<number>;
}

/** A perfect subtree of the Merkle tree: `position` = level·2^40 + index (tree.ts). */
export interface AuditTreeNodesTable {
  position: number;
  hash: Buffer;
  /** For a leaf (level 0): the `seq` of its entry, written in the transaction that records the entry. */
  entry_seq: number | null;
}

/** The one row (id 1) holding the tree's size and right edge; appenders lock it, so leaves follow commit order. */
export interface AuditTreeHeadTable {
  id: number;
  size: number;
  /** The perfect-subtree roots of the right edge, largest first, 32 bytes each. */
  frontier: Buffer;
}

/** Signed checkpoints (checkpoint.ts), one per tree size signed. */
export interface AuditCheckpointsTable {
  tree_size: number;
  root_hash: Buffer;
  /** The signed note, exactly as signed (docs/audit-log.md). */
  note: string;
  signed_at: number;
}

export interface AuditTables {
  audit_entries: AuditEntriesTable;
  audit_tree_nodes: AuditTreeNodesTable;
  audit_tree_head: AuditTreeHeadTable;
  audit_checkpoints: AuditCheckpointsTable;
}
