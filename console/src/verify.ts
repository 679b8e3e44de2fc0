import { api, ApiError } from './api';
import { shownKey, type ShownEntry } from './audit-entry';

/**
 * Checks, in the browser, that the audit entries a page shows are in the service's signed log
 * (docs/audit-log.md), trusting nothing the service says without proof: the checkpoint's Ed25519
 * signature (WebCrypto) against the published key, pinned in this browser on first sight; that the
 * log only grew since the checkpoint this browser last saw (consistency proof); and for each entry
 * that its hash preimage hashes to its chain hash and says what the page shows, and that
 * SHA-256(0x00 ‖ chain hash) folds with its inclusion proof into the signed root (RFC 9162).
 * Loaded on demand (import()), so the first page load does not carry it.
 */

export interface ProvenEntry {
  id: string;
  leafIndex: number | null;
  lockId: string;
  timestamp: number;
  type: string;
  actorUserId: string | null;
  subjectUserId: string | null;
  rejected: boolean;
  message: string;
  details: Record<string, unknown> | null;
  previousHash: string;
  hash: string;
  proof: string[] | null;
  preimage: string | null;
}

export type EntryStatus = 'verified' | 'pending' | 'failed' | 'unavailable' | 'unchecked';
export interface EntryCheck {
  status: EntryStatus;
  reason?: string;
}

export interface Verification {
  /** The checkpoint entries were checked against; null before the service has signed one. */
  checkpoint: { size: number; origin: string } | null;
  /** Why the checkpoint itself cannot be trusted: then no entry counts as verified. */
  problem?: string;
  /** By shownKey(entry). */
  checks: Map<string, EntryCheck>;
}

interface CheckpointResponse { checkpoint: string; origin: string; treeSize: number; rootHash: string; verifierKey: string }
interface KeyResponse { origin: string; verifierKey: string; publicKey: string }

const PINNED_KEY = 'latchkey.console.audit-key';
const SEEN_CHECKPOINT = 'latchkey.console.audit-checkpoint';
const PAGE = 100;
/** Proof pages read per lock at most: older entries than these are left unchecked. */
const MAX_PAGES = 5;

class Untrusted extends Error {}

const utf8 = (text: string) => new TextEncoder().encode(text);
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const fromHex = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

async function sha256(...parts: Array<Uint8Array | number[]>): Promise<Uint8Array> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return new Uint8Array(await crypto.subtle.digest('SHA-256', all));
}
const leafHash = (data: Uint8Array) => sha256([0], data);
const nodeHash = (left: Uint8Array, right: Uint8Array) => sha256([1], left, right);

/** RFC 9162 §2.1.3.2. */
async function verifyInclusion(leaf: Uint8Array, index: number, size: number, proof: Uint8Array[], root: Uint8Array): Promise<boolean> {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = await leafHash(leaf);
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else r = await nodeHash(r, p);
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 && equal(r, root);
}

/** RFC 9162 §2.1.4.2. */
async function verifyConsistency(size1: number, size2: number, root1: Uint8Array, root2: Uint8Array, proof: Uint8Array[]): Promise<boolean> {
  if (size1 > size2 || size1 < 1) return false;
  if (size1 === size2) return proof.length === 0 && equal(root1, root2);
  const path = (size1 & (size1 - 1)) === 0 ? [root1, ...proof] : [...proof];
  if (path.length === 0) return false;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn >>= 1;
    sn >>= 1;
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else sr = await nodeHash(sr, c);
    fn >>= 1;
    sn >>= 1;
  }
  return equal(fr, root1) && equal(sr, root2) && sn === 0;
}

/** The published key, checked against its own key ID and the key this browser saw first. */
async function trustedKey(key: KeyResponse): Promise<{ name: string; keyId: Uint8Array; publicKey: CryptoKey }> {
  const match = /^([^+\s]+)\+([0-9a-f]{8})\+([A-Za-z0-9+/]+=*)$/.exec(key.verifierKey);
  if (!match) throw new Untrusted('the published verifier key is malformed');
  const [, name, id, encoded] = match as unknown as [string, string, string, string];
  const typed = fromBase64(encoded);
  const raw = typed.slice(1);
  if (typed.length !== 33 || typed[0] !== 1 || !equal(raw, fromBase64(key.publicKey))) throw new Untrusted('the published verifier key is not the published Ed25519 key');
  const keyId = (await sha256(utf8(name), [0x0a, 0x01], raw)).slice(0, 4);
  if (toHex(keyId) !== id || name !== key.origin) throw new Untrusted('the published verifier key does not match its name');
  const pinned = localStorage.getItem(PINNED_KEY);
  if (pinned !== null && pinned !== key.verifierKey) throw new Untrusted(`the log is now signed by another key than the one this browser saw before (${pinned})`);
  if (pinned === null) localStorage.setItem(PINNED_KEY, key.verifierKey);
  return { name, keyId, publicKey: await crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']) };
}

/** The size and root of a signed note (C2SP tlog-checkpoint), once its signature is checked. */
async function openCheckpoint(response: CheckpointResponse, key: KeyResponse): Promise<{ size: number; root: Uint8Array; origin: string }> {
  const { name, keyId, publicKey } = await trustedKey(key);
  const note = response.checkpoint;
  const split = note.indexOf('\n\n');
  if (split < 0) throw new Untrusted('the checkpoint is not a signed note');
  const body = note.slice(0, split + 1);
  const [origin, sizeText, rootText] = body.slice(0, -1).split('\n') as [string, string, string];
  const signatures = note.slice(split + 2).split('\n').filter((line) => line.startsWith(`\u2014 ${name} `));
  let signed = false;
  for (const line of signatures) {
    const bytes = fromBase64(line.slice(name.length + 3));
    if (bytes.length !== 68 || !equal(bytes.slice(0, 4), keyId)) continue;
    if (!(await crypto.subtle.verify({ name: 'Ed25519' }, publicKey, bytes.slice(4), utf8(body)))) throw new Untrusted('the checkpoint signature is not valid');
    signed = true;
  }
  if (!signed) throw new Untrusted(`the checkpoint is not signed by ${name}`);
  const size = Number(sizeText);
  if (origin !== name || !/^\d+$/.test(sizeText) || size !== response.treeSize || rootText !== response.rootHash) throw new Untrusted('the signed checkpoint does not say what the service answered');
  return { size, root: fromBase64(rootText), origin };
}

interface SeenCheckpoint { origin: string; size: number; root: string }

function readSeen(): SeenCheckpoint | null {
  try {
    return JSON.parse(localStorage.getItem(SEEN_CHECKPOINT) ?? 'null') as SeenCheckpoint | null;
  } catch {
    return null;
  }
}

/** That the log only grew since the checkpoint this browser checked last; then remembers this one. */
async function checkGrowth(origin: string, size: number, root: Uint8Array): Promise<void> {
  const seen = readSeen();
  if (seen && seen.origin === origin) {
    if (seen.size > size) throw new Untrusted(`the log signs ${size} entries, fewer than the ${seen.size} this browser saw signed before`);
    const earlier = fromBase64(seen.root);
    if (seen.size === size && !equal(earlier, root)) throw new Untrusted(`checkpoint ${size} has another root than when this browser saw it before`);
    if (seen.size < size) {
      const { proof } = await api.get<{ proof: string[] }>(`/audit/proof/consistency?from=${seen.size}&to=${size}`);
      if (!(await verifyConsistency(seen.size, size, earlier, root, proof.map(fromBase64)))) {
        throw new Untrusted(`the log of checkpoint ${size} does not extend the one of checkpoint ${seen.size} this browser saw before: entries were changed or removed`);
      }
    }
  }
  if (!seen || seen.origin !== origin || seen.size <= size) localStorage.setItem(SEEN_CHECKPOINT, JSON.stringify({ origin, size, root: toBase64(root) }));
}

/** JSON with sorted keys, to compare values. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record).filter((k) => record[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(',')}}`;
}

const HASHED = ['lockId', 'timestamp', 'type', 'actorUserId', 'subjectUserId', 'rejected', 'message'];

/**
 * One entry: its preimage hashes to its chain hash and holds the same values as every field the
 * entry carries (whatever fields a later format adds), and its leaf is in the signed tree.
 */
async function checkEntry(entry: ProvenEntry, size: number, root: Uint8Array | null): Promise<EntryCheck> {
  const failed = (reason: string): EntryCheck => ({ status: 'failed', reason });
  if (entry.preimage === null) return failed('the service cannot read this entry back');
  if (toHex(await sha256(utf8(entry.preimage))) !== entry.hash) return failed('its content does not hash to its recorded hash: it was changed');
  let hashed: Record<string, unknown>;
  try {
    hashed = JSON.parse(entry.preimage) as Record<string, unknown>;
  } catch {
    return failed('its hashed record is not JSON');
  }
  const missing = HASHED.find((field) => !(field in hashed));
  if (missing) return failed(`its hashed record has no ${missing}`);
  const fields = entry as unknown as Record<string, unknown>;
  for (const [field, value] of Object.entries(hashed)) {
    if (field === 'v' || !(field in fields)) continue;
    if (canonical(fields[field]) !== canonical(value)) return failed(`its ${field} is not what was hashed`);
  }
  if (entry.details !== null && !('details' in hashed)) return failed('its details are not what was hashed');
  if (root === null || entry.proof === null || entry.leafIndex === null || entry.leafIndex >= size) return { status: 'pending' };
  const included = await verifyInclusion(fromHex(entry.hash), entry.leafIndex, size, entry.proof.map(fromBase64), root);
  return included ? { status: 'verified' } : failed(`it is not in the log signed by checkpoint ${size}`);
}

function matches(proven: ProvenEntry, shown: ShownEntry): boolean {
  return proven.lockId === shown.lockId
    && proven.timestamp === shown.timestamp
    && proven.type === shown.type
    && (proven.actorUserId ?? proven.lockId) === shown.issuer
    && (shown.message === undefined || proven.message === shown.message)
    && (shown.rejected === undefined || proven.rejected === shown.rejected)
    && (shown.subject === undefined || shown.subject === null || proven.subjectUserId === shown.subject)
    && sameIfCarried(proven, 'actorEmail', shown.actorEmail)
    && sameIfCarried(proven, 'actorDisplayName', shown.actorDisplayName);
}

/** A field the page shows, compared when the proven entry carries it (and so its preimage may hash it). */
function sameIfCarried(proven: ProvenEntry, field: string, shown: string | null | undefined): boolean {
  const fields = proven as unknown as Record<string, unknown>;
  return shown === undefined || !(field in fields) || fields[field] === shown;
}

/** A lock's entries from `start` on (newest first), with proofs in the tree of `treeSize`; `complete` when none older was left out. */
async function provenEntries(lockId: string, treeSize: number | null, start: number, end?: number): Promise<{ entries: ProvenEntry[]; complete: boolean }> {
  const entries: ProvenEntry[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({ limit: String(PAGE), start: String(start) });
    if (treeSize !== null) query.set('treeSize', String(treeSize));
    if (end !== undefined) query.set('end', String(end));
    if (cursor !== null) query.set('cursor', cursor);
    // The service pages by `next`: null once the range's last entry has been sent.
    const answer: { entries: ProvenEntry[]; next: string | null } = await api.get(`/device/${encodeURIComponent(lockId)}/log/proof?${query}`);
    entries.push(...answer.entries);
    if (answer.next === null) return { entries, complete: true };
    cursor = answer.next;
  }
  return { entries, complete: false };
}

/**
 * Checks the entries a page shows. `readable` names the locks whose log the viewer may read (their
 * admins): entries on other locks are `unavailable`. `end` is the page's upper time filter, if any.
 */
export async function verifyShown(shown: ShownEntry[], readable: Set<string>, end?: number): Promise<Verification> {
  const checks = new Map<string, EntryCheck>();
  let checkpoint: Verification['checkpoint'] = null;
  let size = 0;
  let root: Uint8Array | null = null;
  try {
    const response = await api.get<CheckpointResponse>('/audit/checkpoint');
    const opened = await openCheckpoint(response, await api.get<KeyResponse>('/audit/checkpoint/key'));
    await checkGrowth(opened.origin, opened.size, opened.root);
    ({ size, root } = opened);
    checkpoint = { size, origin: opened.origin };
  } catch (err) {
    if (err instanceof Untrusted) return { checkpoint: null, problem: err.message, checks };
    if (!(err instanceof ApiError && err.status === 404)) throw err; // 404: nothing signed yet
  }
  const byLock = new Map<string, ShownEntry[]>();
  for (const entry of shown) {
    if (!readable.has(entry.lockId)) checks.set(shownKey(entry), { status: 'unavailable' });
    else byLock.set(entry.lockId, [...(byLock.get(entry.lockId) ?? []), entry]);
  }
  for (const [lockId, entries] of byLock) {
    const oldest = Math.min(...entries.map((e) => e.timestamp));
    let read: Awaited<ReturnType<typeof provenEntries>>;
    try {
      read = await provenEntries(lockId, checkpoint ? size : null, oldest, end);
    } catch (err) {
      // An admin whose window has ended, or a lock left meanwhile: its proofs are not the viewer's to read.
      if (!(err instanceof ApiError && (err.status === 403 || err.status === 404))) throw err;
      for (const entry of entries) checks.set(shownKey(entry), { status: 'unavailable' });
      continue;
    }
    const { entries: proven, complete } = read;
    const results = new Map(await Promise.all(proven.map(async (p) => [p.id, await checkEntry(p, size, root)] as const)));
    const used = new Set<string>();
    for (const entry of entries) {
      const found = proven.find((p) => !used.has(p.id) && matches(p, entry));
      if (found) used.add(found.id);
      const check: EntryCheck = found ? results.get(found.id)! : complete ? { status: 'failed', reason: 'the signed log has no such entry' } : { status: 'unchecked' };
      checks.set(shownKey(entry), check);
    }
  }
  return { checkpoint, checks };
}
