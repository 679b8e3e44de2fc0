import { hash } from 'node:crypto';
import { GENESIS_HASH, auditEntryPreimage, type AuditHashInput } from './log-format.js';

/**
 * The hash chain of a lock's audit trail: each entry's hash is SHA-256 of its preimage, whose byte
 * format log-format.ts defines and documents (shared with the console, which checks entries in
 * the browser). Hashed here with node:crypto's one-shot `hash`, on every entry recorded.
 */

export {
  CURRENT_HASH_VERSION, GENESIS_HASH, auditEntryPreimage, canonicalJson, type AuditClient, type AuditHashInput, type AuditPartySnapshot,
} from './log-format.js';

/** SHA-256 hex of the entry chained to `previousHash` (null for a lock's first entry). */
export function auditEntryHash(previousHash: string | null, entry: AuditHashInput): string {
  return hash('sha256', auditEntryPreimage(previousHash, entry), 'hex');
}

/** A stored entry as the verifier reads it: the hashed fields plus its id, its hash and, if stored, the previous hash. */
export type ChainedAuditEntry = AuditHashInput & {
  id: string;
  hash: string;
  previousHash?: string | null;
};

export type ChainVerification =
  | { ok: true; count: number; lastHash: string | null }
  | { ok: false; brokenAt: number; entryId: string; reason: 'hash mismatch' | 'previous hash mismatch' | 'different lock' };

/**
 * Checks one lock's entries, oldest first. `from` continues a chain verified in pages: pass the
 * `lastHash` of the previous page (default: the chain starts here). Removing entries from the end
 * of a trail leaves a valid shorter chain; compare `count`/`lastHash` with a copy kept elsewhere
 * to detect that.
 */
export function verifyChain(entries: readonly ChainedAuditEntry[], from: { previousHash: string | null } = { previousHash: null }): ChainVerification {
  let previousHash = from.previousHash;
  const lockId = entries[0]?.lockId;
  for (const [index, entry] of entries.entries()) {
    const broken = (reason: 'hash mismatch' | 'previous hash mismatch' | 'different lock') =>
      ({ ok: false, brokenAt: index, entryId: entry.id, reason }) as const;
    if (entry.lockId !== lockId) return broken('different lock');
    if (entry.previousHash !== undefined && (entry.previousHash ?? GENESIS_HASH) !== (previousHash ?? GENESIS_HASH)) {
      return broken('previous hash mismatch');
    }
    let expected: string;
    try {
      expected = auditEntryHash(previousHash, entry);
    } catch {
      return broken('hash mismatch'); // a field of the wrong type cannot be what was hashed
    }
    if (entry.hash !== expected) return broken('hash mismatch');
    previousHash = entry.hash;
  }
  return { ok: true, count: entries.length, lastHash: previousHash };
}
