import { createHash } from 'node:crypto';

/**
 * The hash chain of a lock's append-only audit trail (decisions §5). Each entry's hash covers the
 * previous entry's hash, so altering, removing, inserting or reordering any entry breaks every
 * hash after it; `latchkey audit verify` recomputes them.
 *
 * Byte format, so that an auditor can recompute a hash without this code:
 *
 *   hash = lowercase hex of SHA-256( UTF-8( JCS(preimage) ) )
 *
 * where JCS is the JSON Canonicalization Scheme (RFC 8785: no whitespace, object keys sorted by
 * UTF-16 code units, numbers and strings written as ECMAScript's JSON.stringify writes them) and
 * the preimage is the object
 *
 *   { "v": 1, "previousHash": <hash of the lock's previous entry, or GENESIS_HASH for its first>,
 *     "lockId", "timestamp", "type", "actorUserId", "subjectUserId", "rejected", "message",
 *     "details" }
 *
 * with `actorUserId`/`subjectUserId` a string or null, `timestamp` Unix seconds as stored (a
 * fraction allowed), and `details` omitted when absent or null. `details` is hashed as it reads
 * back from JSON storage (values JSON cannot hold are normalised the way JSON.stringify does),
 * so the store must keep JSON values exactly (jsonb reorders keys, which JCS makes harmless).
 * For example, the first entry of a lock hashes the bytes
 *
 *   {"actorUserId":"u1","lockId":"l1","message":"","previousHash":"000…000","rejected":false,
 *    "subjectUserId":null,"timestamp":1700000000,"type":"OWNER_ASSIGNED","v":1}
 *
 * (one line, 64 zeros). The sequence number and the entry id are not hashed: order is what the
 * chain itself proves.
 */

export const GENESIS_HASH = '0'.repeat(64);
const FORMAT_VERSION = 1;

export interface AuditHashInput {
  lockId: string;
  seq?: never;
  timestamp: number;
  type: string;
  actorUserId: string | null;
  subjectUserId: string | null;
  rejected: boolean;
  message: string;
  details?: object | null;
}

/** RFC 8785 serialisation of a JSON value (objects, arrays, strings, finite numbers, booleans, null). */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('canonical JSON cannot hold a non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
}

function requireField(ok: boolean, name: string): void {
  if (!ok) throw new TypeError(`audit entry field ${name} is missing or of the wrong type`);
}

function checkEntry(entry: AuditHashInput): void {
  requireField(typeof entry.lockId === 'string', 'lockId');
  requireField(typeof entry.timestamp === 'number' && Number.isFinite(entry.timestamp), 'timestamp');
  requireField(typeof entry.type === 'string', 'type');
  requireField(entry.actorUserId === null || typeof entry.actorUserId === 'string', 'actorUserId');
  requireField(entry.subjectUserId === null || typeof entry.subjectUserId === 'string', 'subjectUserId');
  requireField(typeof entry.rejected === 'boolean', 'rejected');
  requireField(typeof entry.message === 'string', 'message');
}

/** The preimage of an entry's hash, as the exact string that is hashed. */
export function auditEntryPreimage(previousHash: string | null, entry: AuditHashInput): string {
  checkEntry(entry);
  const preimage: Record<string, unknown> = {
    v: FORMAT_VERSION,
    previousHash: previousHash ?? GENESIS_HASH,
    lockId: entry.lockId,
    timestamp: entry.timestamp,
    type: entry.type,
    actorUserId: entry.actorUserId,
    subjectUserId: entry.subjectUserId,
    rejected: entry.rejected,
    message: entry.message,
  };
  if (entry.details !== undefined && entry.details !== null) {
    preimage.details = JSON.parse(JSON.stringify(entry.details)) as unknown;
  }
  return canonicalJson(preimage);
}

/** SHA-256 hex of the entry chained to `previousHash` (null for a lock's first entry). */
export function auditEntryHash(previousHash: string | null, entry: AuditHashInput): string {
  return createHash('sha256').update(auditEntryPreimage(previousHash, entry), 'utf8').digest('hex');
}

/** A stored entry as the verifier reads it: the hashed fields plus its id, its hash and, if stored, the previous hash. */
export type ChainedAuditEntry = Omit<AuditHashInput, 'seq'> & {
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
