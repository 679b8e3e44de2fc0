import {
  HASHED_FIELDS, canonicalJson, equalBytes, fromBase64, fromHex, keyIdInput, leafInput, nodeInput, readCheckpointNote, readVerifierKey,
  rootFromInclusionProof, rootsFromConsistencyProof, toBase64, toHex, type Bytes, type Checkpoint, type NodeHasher,
} from '../../../src/audit/log-format';
import { ApiError, type ApiClient } from './client';
import { checkpointKey, consistencyProof, latestCheckpoint, lockLogProofs } from './endpoints';
import { shownKey, type ShownEntry } from './shown-entry';
import type { CheckpointAnswer, CheckpointKeyAnswer, ProvenEntry } from './types';

/**
 * Checks, in the browser, that the audit entries a page shows are in the service's signed log
 * (docs/audit-log.md), trusting nothing the service says without proof: the checkpoint's Ed25519
 * signature (WebCrypto) against the published key, pinned in this browser on first sight; that the
 * log only grew since the checkpoint this browser last saw (consistency proof); and for each entry
 * that its hash preimage hashes to its chain hash and says what the page shows, and that
 * SHA-256(0x00 ‖ chain hash) folds with its inclusion proof into the signed root (RFC 9162). The
 * formats and the folding are the service's own (src/audit/log-format.ts); hashing is WebCrypto's.
 * Loaded on demand (import()), so the first page load does not carry it.
 */

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

const PINNED_KEY = 'latchkey.console.audit-key';
const SEEN_CHECKPOINT = 'latchkey.console.audit-checkpoint';
const PAGE = 100;
/** Proof pages read per lock at most: older entries than these are left unchecked. */
const MAX_PAGES = 5;

class Untrusted extends Error {}

const utf8 = (text: string) => new TextEncoder().encode(text);
const sha256 = async (bytes: Bytes) => new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
/** The tree's node hash over promises: log-format.ts folds proofs the same way on the service, synchronously. */
const nodeHash: NodeHasher<Promise<Uint8Array>> = async (left, right) => sha256(nodeInput(await left, await right));
const settled = (hashes: Uint8Array[]) => hashes.map((hash) => Promise.resolve(hash));

async function verifyInclusion(leafData: Uint8Array, index: number, size: number, proof: Uint8Array[], root: Uint8Array): Promise<boolean> {
  const computed = rootFromInclusionProof(sha256(leafInput(leafData)), index, size, settled(proof), nodeHash);
  return computed !== null && equalBytes(await computed, root);
}

async function verifyConsistency(firstSize: number, secondSize: number, firstRoot: Uint8Array, secondRoot: Uint8Array, proof: Uint8Array[]): Promise<boolean> {
  const roots = rootsFromConsistencyProof(firstSize, secondSize, Promise.resolve(firstRoot), settled(proof), nodeHash);
  return roots !== null && equalBytes(await roots.first, firstRoot) && equalBytes(await roots.second, secondRoot);
}

/** The published key, checked against its own key ID and the key this browser saw first. */
async function trustedKey(key: CheckpointKeyAnswer): Promise<{ name: string; keyId: Uint8Array; publicKey: CryptoKey }> {
  let read: ReturnType<typeof readVerifierKey>;
  try {
    read = readVerifierKey(key.verifierKey);
  } catch (err) {
    throw new Untrusted(`the published verifier key is malformed (${(err as Error).message})`);
  }
  const { name, keyId, publicKeyRaw } = read;
  if (!equalBytes(publicKeyRaw, fromBase64(key.publicKey) ?? new Uint8Array())) throw new Untrusted('the published verifier key is not the published Ed25519 key');
  const computedId = (await sha256(keyIdInput(name, publicKeyRaw))).slice(0, 4);
  if (!equalBytes(computedId, keyId) || name !== key.origin) throw new Untrusted('the published verifier key does not match its name');
  const pinned = localStorage.getItem(PINNED_KEY);
  if (pinned !== null && pinned !== key.verifierKey) throw new Untrusted(`the log is now signed by another key than the one this browser saw before (${pinned})`);
  if (pinned === null) localStorage.setItem(PINNED_KEY, key.verifierKey);
  return { name, keyId, publicKey: await crypto.subtle.importKey('raw', publicKeyRaw, { name: 'Ed25519' }, false, ['verify']) };
}

/** The checkpoint of the signed note the service answered, once its signature is checked. */
async function openCheckpoint(answer: CheckpointAnswer, key: CheckpointKeyAnswer): Promise<Checkpoint> {
  const signer = await trustedKey(key);
  let read: ReturnType<typeof readCheckpointNote>;
  try {
    read = readCheckpointNote(answer.checkpoint, signer);
  } catch (err) {
    throw new Untrusted(`the ${(err as Error).message}`);
  }
  const { checkpoint, body, signatures } = read;
  const valid = await Promise.all(signatures.map((signature) => crypto.subtle.verify({ name: 'Ed25519' }, signer.publicKey, signature, utf8(body))));
  if (!valid.every(Boolean)) throw new Untrusted('the checkpoint signature is not valid');
  if (valid.length === 0) throw new Untrusted(`the checkpoint is not signed by ${signer.name}`);
  if (checkpoint.origin !== signer.name || checkpoint.size !== answer.treeSize || toBase64(checkpoint.root) !== answer.rootHash) {
    throw new Untrusted('the signed checkpoint does not say what the service answered');
  }
  return checkpoint;
}

interface SeenCheckpoint { origin: string; size: number; root: string }

function readSeen(): SeenCheckpoint | null {
  try {
    return JSON.parse(localStorage.getItem(SEEN_CHECKPOINT) ?? 'null') as SeenCheckpoint | null;
  } catch {
    return null;
  }
}

const hashes = (base64: string[]) => base64.map((text) => fromBase64(text) ?? new Uint8Array());

/** That the log only grew since the checkpoint this browser checked last; then remembers this one. */
async function checkGrowth(api: ApiClient, { origin, size, root }: Checkpoint): Promise<void> {
  const seen = readSeen();
  if (seen && seen.origin === origin) {
    if (seen.size > size) throw new Untrusted(`the log signs ${size} entries, fewer than the ${seen.size} this browser saw signed before`);
    const [earlier] = hashes([seen.root]) as [Uint8Array];
    if (seen.size === size && !equalBytes(earlier, root)) throw new Untrusted(`checkpoint ${size} has another root than when this browser saw it before`);
    if (seen.size < size) {
      const { proof } = await consistencyProof(api, seen.size, size);
      if (!(await verifyConsistency(seen.size, size, earlier, root, hashes(proof)))) {
        throw new Untrusted(`the log of checkpoint ${size} does not extend the one of checkpoint ${seen.size} this browser saw before: entries were changed or removed`);
      }
    }
  }
  if (!seen || seen.origin !== origin || seen.size <= size) localStorage.setItem(SEEN_CHECKPOINT, JSON.stringify({ origin, size, root: toBase64(root) }));
}

/** Whether two JSON values are the same (as their canonical JSON). */
function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

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
  const missing = HASHED_FIELDS.find((field) => !(field in hashed));
  if (missing) return failed(`its hashed record has no ${missing}`);
  const fields = entry as unknown as Record<string, unknown>;
  for (const [field, value] of Object.entries(hashed)) {
    if (field === 'v' || !(field in fields)) continue;
    if (!sameJson(fields[field], value)) return failed(`its ${field} is not what was hashed`);
  }
  if (entry.details !== null && !('details' in hashed)) return failed('its details are not what was hashed');
  if (root === null || entry.proof === null || entry.leafIndex === null || entry.leafIndex >= size) return { status: 'pending' };
  const included = await verifyInclusion(fromHex(entry.hash), entry.leafIndex, size, hashes(entry.proof), root);
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
async function provenEntries(api: ApiClient, lockId: string, treeSize: number | null, start: number, end?: number): Promise<{ entries: ProvenEntry[]; complete: boolean }> {
  const entries: ProvenEntry[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({ limit: String(PAGE), start: String(start) });
    if (treeSize !== null) query.set('treeSize', String(treeSize));
    if (end !== undefined) query.set('end', String(end));
    if (cursor !== null) query.set('cursor', cursor);
    // The service pages by `next`: null once the range's last entry has been sent.
    const answer = await lockLogProofs(api, lockId, query);
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
export async function verifyShown(api: ApiClient, shown: ShownEntry[], readable: Set<string>, end?: number): Promise<Verification> {
  const checks = new Map<string, EntryCheck>();
  let checkpoint: Verification['checkpoint'] = null;
  let size = 0;
  let root: Uint8Array | null = null;
  try {
    const opened = await openCheckpoint(await latestCheckpoint(api), await checkpointKey(api));
    await checkGrowth(api, opened);
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
      read = await provenEntries(api, lockId, checkpoint ? size : null, oldest, end);
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
