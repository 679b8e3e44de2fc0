/**
 * The audit log's byte formats, in one pure module that the service and the console (which
 * bundles it for the browser) both use: an entry's hash input, the Merkle tree's leaf and node
 * inputs and proof folding (RFC 9162), and checkpoints as signed notes (C2SP). Nothing here uses
 * a Node API or hashes: the service hashes with node:crypto's one-shot `hash` (chain.ts,
 * merkle.ts, note.ts), the browser with WebCrypto (console/src/api/audit-proof.ts).
 */

// ——— An entry's hash input ———————————————————————————————————————————————————————————————————
/*
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
 * without the four email and display-name members. Format 3 (every entry recorded since migration
 * 0030) is format 2 with "v": 3 and two members more: "actorIp", the address the actor's request
 * came from (as the service read it, honouring TRUST_PROXY; null when the actor acted through no
 * request of theirs), and "userAgent", `{"type": <the SDK's AuditUserAgentType>, "version": <string
 * or null>}` read from that request's User-Agent, or null. `actorEmail`, `actorDisplayName`,
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
export const CURRENT_HASH_VERSION = 3 as const;

/** The fields both formats hash (a preimage without one of them is not an entry's). */
export const HASHED_FIELDS = ['lockId', 'timestamp', 'type', 'actorUserId', 'subjectUserId', 'rejected', 'message'] as const;

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

/** The client an actor used (issue 28): hashed from format 3 on. */
export interface AuditClient {
  actorIp: string | null;
  userAgent: { type: string; version: string | null } | null;
}

/** An entry's hashed fields in one of the three formats. */
export type AuditHashInput =
  | (HashedFields & { version: 1 })
  | (HashedFields & AuditPartySnapshot & { version: 2 })
  | (HashedFields & AuditPartySnapshot & AuditClient & { version: 3 });

const SNAPSHOT_FIELDS = ['actorEmail', 'actorDisplayName', 'subjectEmail', 'subjectDisplayName'] as const;
const CLIENT_FIELDS = ['actorIp', 'userAgent'] as const;

/** Each format's preimage members, sorted once as canonicalJson sorts them (verify hashes every entry). */
const PREIMAGE_KEYS_V1 = ['v', 'previousHash', ...HASHED_FIELDS, 'details'].sort();
const PREIMAGE_KEYS_V2 = [...PREIMAGE_KEYS_V1, ...SNAPSHOT_FIELDS].sort();
const PREIMAGE_KEYS_V3 = [...PREIMAGE_KEYS_V2, ...CLIENT_FIELDS].sort();
const PREIMAGE_KEYS = { 1: PREIMAGE_KEYS_V1, 2: PREIMAGE_KEYS_V2, 3: PREIMAGE_KEYS_V3 } as const;

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

const isUserAgent = (value: unknown): boolean =>
  value === null || (typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string' && nullableString((value as { version?: unknown }).version) && Object.keys(value).length === 2);

function checkEntry(entry: AuditHashInput): void {
  requireField(entry.version === 1 || entry.version === 2 || entry.version === 3, 'version');
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
    requireField(entry.version >= 2 ? nullableString(value) : value === undefined, field);
  }
  // Formats 1 and 2 hash no client: one handed in would be silently left unprotected.
  const client = entry as Partial<AuditClient>;
  requireField(entry.version === 3 ? nullableString(client.actorIp) : client.actorIp === undefined, 'actorIp');
  requireField(entry.version === 3 ? isUserAgent(client.userAgent) : client.userAgent === undefined, 'userAgent');
}

/** The members of an entry's preimage, checked (undefined ones are left out of the string). */
function preimageMembers(previousHash: string | null, entry: AuditHashInput): Record<string, unknown> {
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
  if (entry.version >= 2) {
    for (const field of SNAPSHOT_FIELDS) preimage[field] = (entry as AuditPartySnapshot)[field];
  }
  if (entry.version === 3) {
    preimage.actorIp = entry.actorIp;
    preimage.userAgent = entry.userAgent === null ? null : { type: entry.userAgent.type, version: entry.userAgent.version };
  }
  if (entry.details !== undefined && entry.details !== null) {
    preimage.details = JSON.parse(JSON.stringify(entry.details)) as unknown;
  }
  return preimage;
}

/** The preimage of an entry's hash, as the exact string that is hashed. */
export function auditEntryPreimage(previousHash: string | null, entry: AuditHashInput): string {
  return canonicalMembers(preimageMembers(previousHash, entry), PREIMAGE_KEYS[entry.version]);
}

/**
 * The members of a format-3 preimage that PostgreSQL's append function fills in (migration 0230):
 * the parties as their user rows read under the tree head's lock, and the lock's last hash read
 * after it. In RFC 8785 key order, which is the order of their holes in the preimage.
 */
export const PREIMAGE_HOLES = ['actorDisplayName', 'actorEmail', 'previousHash', 'subjectDisplayName', 'subjectEmail'] as const;
const HOLES = new Set<string>(PREIMAGE_HOLES);

/**
 * A format-3 entry's preimage as the text around PREIMAGE_HOLES: six pieces, each hole's value
 * (JSON: a string, or null) going between two. Joined with the values as JSON.stringify writes
 * them it is auditEntryPreimage's string exactly (test/audit/log-format.unit.test.ts); the
 * entry's own parties are ignored.
 */
export function auditEntryPreimagePieces(entry: HashedFields & AuditClient & { version: 3 }): string[] {
  const members = preimageMembers(null, { ...entry, actorEmail: null, actorDisplayName: null, subjectEmail: null, subjectDisplayName: null });
  const pieces: string[] = [];
  let out = '';
  for (const key of PREIMAGE_KEYS_V3) {
    const member = members[key];
    if (member === undefined) continue;
    out += `${out === '' && pieces.length === 0 ? '{' : ','}${JSON.stringify(key)}:`;
    if (HOLES.has(key)) {
      pieces.push(out);
      out = '';
    } else {
      out += canonicalJson(member);
    }
  }
  pieces.push(`${out}}`);
  return pieces;
}

// ——— The Merkle tree (RFC 9162 §2.1) —————————————————————————————————————————————————————————

/**
 * The bytes a leaf hash covers: 0x00 ‖ leaf data (an entry's leaf data is its chain hash), written
 * into `out` of 1 + data.length bytes (the service passes a pooled Buffer: faster to allocate).
 */
export function leafInput(data: Uint8Array, out: Bytes = new Uint8Array(1 + data.length)): Bytes {
  out[0] = 0x00;
  out.set(data, 1);
  return out;
}

/** The bytes a node hash covers: 0x01 ‖ left ‖ right, written into `out` as leafInput does. */
export function nodeInput(left: Uint8Array, right: Uint8Array, out: Bytes = new Uint8Array(1 + left.length + right.length)): Bytes {
  out[0] = 0x01;
  out.set(left, 1);
  out.set(right, 1 + left.length);
  return out;
}

/** Exact for sizes past 2^32, where bitwise operators would not be. */
export function isPowerOfTwo(n: number): boolean {
  let p = 1;
  while (p < n) p *= 2;
  return p === n;
}

/** A node's hash from its children's: synchronous on the service, a promise of one in the browser. */
export type NodeHasher<H> = (left: H, right: H) => H;

const half = (n: number) => Math.floor(n / 2);

/**
 * RFC 9162's walk up a proof path: for each of `length` hashes, whether it stands left of the
 * running hash, starting at node `fn` of a level whose last node is `sn`; null when the path does
 * not end at the root (too long or too short).
 */
function proofSides(fn: number, sn: number, length: number): boolean[] | null {
  const left: boolean[] = [];
  for (let i = 0; i < length; i++) {
    if (sn === 0) return null;
    const isLeft = fn % 2 === 1 || fn === sn;
    if (isLeft) {
      while (fn % 2 === 0 && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    }
    left.push(isLeft);
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 ? left : null;
}

/**
 * RFC 9162 §2.1.3.2: the root that an inclusion proof leads to from the leaf hash of leaf `index`
 * in a tree of `size`; null when it cannot be a proof for that position (the caller compares the
 * root with the signed one).
 */
export function rootFromInclusionProof<H>(leaf: H, index: number, size: number, proof: readonly H[], node: NodeHasher<H>): H | null {
  const left = index < size ? proofSides(index, size - 1, proof.length) : null;
  return left && proof.reduce((r, p, i) => (left[i] ? node(p, r) : node(r, p)), leaf);
}

/**
 * RFC 9162 §2.1.4.2: the roots of the first and the second tree that a consistency proof leads to
 * from the first tree's root; null when it cannot be a proof between those sizes. The caller
 * compares them with the two signed roots (for equal sizes, both are `firstRoot`).
 */
export function rootsFromConsistencyProof<H>(firstSize: number, secondSize: number, firstRoot: H, proof: readonly H[], node: NodeHasher<H>): { first: H; second: H } | null {
  if (firstSize > secondSize || firstSize < 1) return null;
  if (firstSize === secondSize) return proof.length === 0 ? { first: firstRoot, second: firstRoot } : null;
  const [start, ...rest] = isPowerOfTwo(firstSize) ? [firstRoot, ...proof] : proof;
  if (start === undefined) return null;
  let fn = firstSize - 1;
  let sn = secondSize - 1;
  while (fn % 2 === 1) {
    fn = half(fn);
    sn = half(sn);
  }
  const left = proofSides(fn, sn, rest.length);
  if (!left) return null;
  let first: H = start;
  let second: H = start;
  rest.forEach((c, i) => {
    if (left[i]) first = node(c, first);
    second = left[i] ? node(c, second) : node(second, c);
  });
  return { first, second };
}

// ——— Checkpoints as signed notes (c2sp.org/tlog-checkpoint, c2sp.org/signed-note) ———————————————
/*
 *   <origin>\n<tree size, decimal>\n<root hash, Base64>\n
 *   \n
 *   — <key name> <Base64(key ID (4 bytes) || Ed25519 signature (64 bytes))>\n
 *
 * The signature covers the body (the first three lines with their newlines). The key ID is the
 * first 4 bytes of SHA-256(key name || 0x0A || 0x01 || public key); the verifier key is written
 * `<name>+<key ID, 8 hex digits>+<Base64(0x01 || public key)>`. Tools written for transparency
 * logs read them as they are.
 */

const ED25519_TYPE = 0x01;
const SIGNATURE_PREFIX = '\u2014 ';

export interface Checkpoint {
  origin: string;
  size: number;
  root: Bytes;
}

/** The bytes whose SHA-256 begins with a key's ID: name ‖ 0x0A ‖ 0x01 ‖ public key. */
export function keyIdInput(name: string, publicKeyRaw: Uint8Array): Bytes {
  return concatBytes(new TextEncoder().encode(name), [0x0a, ED25519_TYPE], publicKeyRaw);
}

/** `<name>+<key ID>+<Base64(0x01 ‖ key)>`, `keyId` being the first 4 bytes of SHA-256(keyIdInput). */
export function formatVerifierKey(name: string, keyId: Uint8Array, publicKeyRaw: Uint8Array): string {
  return `${name}+${toHex(keyId)}+${toBase64(concatBytes([ED25519_TYPE], publicKeyRaw))}`;
}

/**
 * A verifier key's name, key ID and raw Ed25519 key; throws an Error naming what is wrong. The
 * caller checks the key ID against the hash of keyIdInput (hashing is not done here).
 */
export function readVerifierKey(text: string): { name: string; keyId: Bytes; publicKeyRaw: Bytes } {
  const match = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(text.trim());
  if (!match) throw new Error('verifier key must read <name>+<key id>+<Base64 key>');
  const [, name, id, key] = match as unknown as [string, string, string, string];
  const bytes = fromBase64(key);
  if (bytes?.length !== 33 || bytes[0] !== ED25519_TYPE) throw new Error('verifier key is not an Ed25519 signed-note key');
  return { name, keyId: fromHex(id), publicKeyRaw: bytes.subarray(1) };
}

/** The part of a checkpoint note that its signatures cover. */
export function checkpointBody(checkpoint: { origin: string; size: number; root: Uint8Array }): string {
  return `${checkpoint.origin}\n${checkpoint.size}\n${toBase64(checkpoint.root)}\n`;
}

/** The signed note: the body, a blank line, and the signature line of key `name`. */
export function signedNote(body: string, name: string, keyId: Uint8Array, signature: Uint8Array): string {
  return `${body}\n${SIGNATURE_PREFIX}${name} ${toBase64(concatBytes(keyId, signature))}\n`;
}

/**
 * A note's checkpoint, and the signatures on it by `signer` (its name and key ID), read without
 * checking them: the caller verifies each over `body` and trusts the checkpoint when there is at
 * least one and every one verifies. Throws an Error saying what is malformed.
 */
export function readCheckpointNote(note: string, signer: { name: string; keyId: Uint8Array }): { checkpoint: Checkpoint; body: string; signatures: Bytes[] } {
  const split = note.indexOf('\n\n');
  if (split < 0 || !note.endsWith('\n')) throw new Error('checkpoint is not a signed note');
  const body = note.slice(0, split + 1);
  const lines = body.slice(0, -1).split('\n');
  if (lines.length < 3) throw new Error('checkpoint body must have an origin, a size and a root hash');
  const [origin, sizeText, rootText] = lines as [string, string, string];
  const root = fromBase64(rootText);
  if (!/^(0|[1-9]\d{0,15})$/.test(sizeText) || root?.length !== 32 || toBase64(root) !== rootText || origin === '') throw new Error('checkpoint body is malformed');
  const signatures: Bytes[] = [];
  for (const line of note.slice(split + 2, -1).split('\n')) {
    if (!line.startsWith(SIGNATURE_PREFIX)) throw new Error('checkpoint signature line is malformed');
    const [name, value] = line.slice(SIGNATURE_PREFIX.length).split(' ');
    const bytes = fromBase64(value ?? '');
    if (name === signer.name && bytes?.length === 68 && equalBytes(bytes.subarray(0, 4), signer.keyId)) signatures.push(bytes.subarray(4));
  }
  return { checkpoint: { origin, size: Number(sizeText), root }, body, signatures };
}

// ——— Bytes (no Buffer in the browser) —————————————————————————————————————————————————————————

/** Bytes of their own buffer (never a SharedArrayBuffer's), as WebCrypto takes them. */
export type Bytes = Uint8Array<ArrayBuffer>;

export function concatBytes(...parts: Array<Uint8Array | number[]>): Bytes {
  const bytes = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

export const toHex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
export const fromHex = (hex: string): Bytes => Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The bytes of standard Base64 text; null when it is not Base64. */
export function fromBase64(text: string): Bytes | null {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}
