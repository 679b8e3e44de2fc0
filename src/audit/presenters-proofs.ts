import { auditEntryPreimage } from './chain.js';
import type { CheckpointKey } from './checkpoint-key.js';
import type { ProvenEntry, SignedCheckpoint } from './proofs.js';
import { toChainedEntry } from './verify.js';

export function presentCheckpoint({ checkpoint, key }: { checkpoint: SignedCheckpoint; key: CheckpointKey }) {
  return { checkpoint: checkpoint.note, origin: key.origin, treeSize: checkpoint.treeSize, rootHash: checkpoint.rootHash.toString('base64'), verifierKey: key.verifierKey };
}

export function presentCheckpointKey(key: CheckpointKey) {
  return { origin: key.origin, verifierKey: key.verifierKey, publicKey: key.publicKeyRaw.toString('base64'), algorithm: 'Ed25519' as const };
}

/**
 * The exact text hashed into the entry's chain hash (chain.ts), as the row now reads; null when
 * the row cannot be read as an entry (which is itself a failed check). A client hashes it, compares
 * with `hash`, and compares the fields it shows with the preimage's: that needs no knowledge of the
 * preimage's format version, so a field added to the hash later does not break a client.
 */
function preimageOf(row: ProvenEntry['row']): string | null {
  const entry = toChainedEntry(row);
  if (entry === null) return null;
  try {
    return auditEntryPreimage(row.prev_hash, entry);
  } catch {
    return null;
  }
}

export function presentProvenEntry({ row, leafIndex, proof }: ProvenEntry) {
  return {
    id: row.id,
    leafIndex,
    lockId: row.lock_id,
    timestamp: row.timestamp,
    type: row.type,
    actorUserId: row.actor_user_id,
    subjectUserId: row.subject_user_id,
    actorEmail: row.actor_email,
    actorDisplayName: row.actor_display_name,
    subjectEmail: row.subject_email,
    subjectDisplayName: row.subject_display_name,
    // The client is hashed from format 3 on: shown exactly when it is (so the fields shown are the hashed ones).
    ...(row.hash_version >= 3 ? { actorIp: row.actor_ip, userAgent: row.user_agent_type === null ? null : { type: row.user_agent_type, version: row.user_agent_version } } : {}),
    rejected: row.rejected === 1,
    message: row.message,
    details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
    previousHash: row.prev_hash,
    hash: row.hash,
    hashVersion: row.hash_version,
    proof: proof === null ? null : proof.map((h) => h.toString('base64')),
    preimage: preimageOf(row),
  };
}
