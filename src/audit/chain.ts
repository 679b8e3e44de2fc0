import { hash } from 'node:crypto';

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
 * the preimage is, for an entry of format 2 (every entry recorded since migration 0014), the object
 *
 *   { "v": 2, "previousHash": <hash of the lock's previous entry, or GENESIS_HASH for its first>,
 *     "lockId", "timestamp", "type", "actorUserId", "actorEmail", "actorDisplayName",
 *     "subjectUserId", "subjectEmail", "subjectDisplayName", "rejected", "message", "details" }
 *
 * and, for an entry of format 1 (recorded before migration 0014), the same object with "v": 1 and
 * without the four email and display-name members. `actorEmail`, `actorDisplayName`,
 * `subjectEmail` and `subjectDisplayName` are the actor's and the subject's email address and
 * display name as their user row read when the entry was recorded (null for no actor or subject,
 * or a user without one); `actorUserId`/`subjectUserId` a string or null, `timestamp` Unix seconds
 * as stored (a fraction allowed), and `details` omitted when absent or null. The store keeps the
 * format as `hash_version`: writing a 1 over a 2 does not help a forger, since "v" is hashed.
 * `details` is hashed as it reads back from JSON storage (values JSON cannot hold are normalised
 * the way JSON.stringify does), so the store must keep JSON values exactly (jsonb reorders keys,
 * which JCS makes harmless). For example, the first entry of a lock hashes the bytes
 *
 *   {"actorDisplayName":"Ann","actorEmail":"ann@example.com","actorUserId":"u1","lockId":"l1",
 *    "message":"","previousHash":"000…000","rejected":false,"subjectDisplayName":null,
 *    "subjectEmail":null,"subjectUserId":null,"timestamp":1700000000,"type":"OWNER_ASSIGNED","v":2}
 *
 * (one line, 64 zeros); in format 1 the same entry hashes
 *
 *   {"actorUserId":"u1","lockId":"l1","message":"","previousHash":"000…000","rejected":false,
 *    "subjectUserId":null,"timestamp":1700000000,"type":"OWNER_ASSIGNED","v":1}
 *
 * The sequence number and the entry id are not hashed: order is what the chain itself proves.
 */

export const GENESIS_HASH = '0'.repeat(64);

/** The format every new entry is recorded in. */
export const CURRENT_HASH_VERSION = 2 as const;

/** The fields both formats hash. */
interface HashedFields {
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

/** Who the actor and the subject were when the entry was recorded: hashed from format 2 on. */
export interface AuditPartySnapshot {
  actorEmail: string | null;
  actorDisplayName: string | null;
  subjectEmail: string | null;
  subjectDisplayName: string | null;
}

/** An entry's hashed fields in one of the two formats. */
export type AuditHashInput = (HashedFields & { version: 1 }) | (HashedFields & AuditPartySnapshot & { version: 2 });

const SNAPSHOT_FIELDS = ['actorEmail', 'actorDisplayName', 'subjectEmail', 'subjectDisplayName'] as const;

/** Each format's preimage members, sorted once as canonicalJson sorts them (verify hashes every entry). */
const PREIMAGE_KEYS_V1 = ['v', 'previousHash', 'lockId', 'timestamp', 'type', 'actorUserId', 'subjectUserId', 'rejected', 'message', 'details'].sort();
const PREIMAGE_KEYS_V2 = [...PREIMAGE_KEYS_V1, ...SNAPSHOT_FIELDS].sort();

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
    return canonicalMembers(record, Object.keys(record).sort());
  }
  throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
}

/** `{…}` of `record`'s members named in `sortedKeys` (already in RFC 8785 order), undefined ones left out. */
function canonicalMembers(record: Record<string, unknown>, sortedKeys: readonly string[]): string {
  let out = '';
  for (const key of sortedKeys) {
    const member = record[key];
    if (member === undefined) continue;
    out += `${out === '' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `{${out}}`;
}

function requireField(ok: boolean, name: string): void {
  if (!ok) throw new TypeError(`audit entry field ${name} is missing or of the wrong type`);
}

const nullableString = (value: unknown): boolean => value === null || typeof value === 'string';

function checkEntry(entry: AuditHashInput): void {
  requireField(entry.version === 1 || entry.version === 2, 'version');
  requireField(typeof entry.lockId === 'string', 'lockId');
  requireField(typeof entry.timestamp === 'number' && Number.isFinite(entry.timestamp), 'timestamp');
  requireField(typeof entry.type === 'string', 'type');
  requireField(nullableString(entry.actorUserId), 'actorUserId');
  requireField(nullableString(entry.subjectUserId), 'subjectUserId');
  requireField(typeof entry.rejected === 'boolean', 'rejected');
  requireField(typeof entry.message === 'string', 'message');
  // Format 1 hashes no snapshot: one handed in would be silently left unprotected.
  for (const field of SNAPSHOT_FIELDS) {
    const value = (entry as Partial<AuditPartySnapshot>)[field];
    requireField(entry.version === 2 ? nullableString(value) : value === undefined, field);
  }
}

/** The preimage of an entry's hash, as the exact string that is hashed. */
export function auditEntryPreimage(previousHash: string | null, entry: AuditHashInput): string {
  checkEntry(entry);
  const preimage: Record<string, unknown> = {
    v: entry.version,
    previousHash: previousHash ?? GENESIS_HASH,
    lockId: entry.lockId,
    timestamp: entry.timestamp,
    type: entry.type,
    actorUserId: entry.actorUserId,
    subjectUserId: entry.subjectUserId,
    rejected: entry.rejected,
    message: entry.message,
  };
  if (entry.version === 2) {
    for (const field of SNAPSHOT_FIELDS) preimage[field] = entry[field];
  }
  if (entry.details !== undefined && entry.details !== null) {
    preimage.details = JSON.parse(JSON.stringify(entry.details)) as unknown;
  }
  return canonicalMembers(preimage, entry.version === 2 ? PREIMAGE_KEYS_V2 : PREIMAGE_KEYS_V1);
}

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
