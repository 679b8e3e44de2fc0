import { createHash, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { GENESIS_HASH, canonicalJson } from '../audit/log-format.js';
import { verifyInclusion } from '../audit/merkle-verify.js';
import { openCheckpoint, parseVerifierKey } from '../audit/note.js';

/**
 * Checking Latchkey's webhooks as a receiver (issue 32 point 5; docs/webhooks.md): each
 * delivery's Standard Webhooks signature, the audit entry it carries (its preimage hashes to its
 * chain hash, and the fields shown are the ones hashed), its inclusion in the audit log's Merkle
 * tree under a checkpoint signed by the log's key; then, over everything a receiver kept, the
 * gaps: per lock, each entry names the hash of the lock's entry before it, so an entry between
 * two received ones that never arrived (dropped, or suppressed by the service) shows as a link
 * that does not join.
 */

/** A delivery as received: its raw body (exactly the bytes), and its headers. */
export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
}

export interface WebhookVerifyOptions {
  /** The endpoint's secrets (`whsec_…`): a delivery must be signed by one of them. */
  secrets: readonly string[];
  /** The audit log's checkpoint key (signed-note verifier key, GET /audit/checkpoint/key → verifierKey). */
  verifierKey: string;
  /** Also refuse a timestamp more than 5 minutes from now (Standard Webhooks' replay guard): for a receiver checking as it receives. */
  checkTimestamp?: boolean;
}

export interface CheckedDelivery {
  id: string;
  ok: boolean;
  /** What failed, in words; empty when ok. */
  problems: string[];
  type: string | null;
  /** For a delivery from an audit entry: the entry, and where it sits in its lock's chain. */
  entry: { id: string; lockId: string; leafIndex: number; hash: string; previousHash: string } | null;
}

export interface WebhookGap {
  lockId: string;
  /** The last entry received before the gap, and the first after it. */
  afterEntryId: string;
  beforeEntryId: string;
  /** The chain hash of the lock's entry just before `beforeEntryId`: the one missing (the last of those missing). */
  missingHash: string;
}

export interface WebhookReport {
  ok: boolean;
  deliveries: CheckedDelivery[];
  gaps: WebhookGap[];
}

function header(headers: Record<string, string>, name: string): string {
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  return found ? found[1] : '';
}

/** Whether one of `secrets` signed the delivery (its signature of `id.timestamp.body` is among those listed). */
function signedBy(delivery: ReceivedWebhook, secrets: readonly string[], checkTimestamp: boolean): boolean {
  const id = header(delivery.headers, 'webhook-id');
  const timestamp = header(delivery.headers, 'webhook-timestamp');
  const listed = header(delivery.headers, 'webhook-signature').split(' ').filter(Boolean);
  const headers = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': listed.join(' ') };
  for (const secret of secrets) {
    if (checkTimestamp) {
      try {
        new Webhook(secret).verify(delivery.body, headers);
        return true;
      } catch {
        continue;
      }
    }
    // Kept deliveries are checked later: the same computation without the clock check.
    const seconds = Number(timestamp);
    if (!/^\d{1,12}$/.test(timestamp) || !Number.isFinite(seconds)) return false;
    const expected = Buffer.from(new Webhook(secret).sign(id, new Date(seconds * 1000), delivery.body));
    if (listed.some((given) => Buffer.byteLength(given) === expected.length && timingSafeEqual(Buffer.from(given), expected))) return true;
  }
  return false;
}

type Entry = Record<string, unknown> & { id: string; lockId: string; leafIndex: number; hash: string; previousHash: string; preimage: string; proof: string[] | null };

function checkEntry(entry: Entry, problems: string[]): void {
  if (createHash('sha256').update(entry.preimage, 'utf8').digest('hex') !== entry.hash) {
    problems.push('the entry\'s preimage does not hash to its hash');
    return;
  }
  const hashed = JSON.parse(entry.preimage) as Record<string, unknown>;
  if ((hashed.previousHash ?? GENESIS_HASH) !== entry.previousHash) problems.push('previousHash is not the one hashed');
  for (const [field, value] of Object.entries(hashed)) {
    if (field === 'v' || field === 'previousHash') continue;
    if (canonicalJson(entry[field] ?? null) !== canonicalJson(value)) problems.push(`${field} is not what was hashed`);
  }
}

/** Checks one delivery (signature, entry, inclusion under a signed checkpoint). */
export function verifyWebhookDelivery(delivery: ReceivedWebhook, options: WebhookVerifyOptions): CheckedDelivery {
  const id = header(delivery.headers, 'webhook-id');
  const problems: string[] = [];
  if (!signedBy(delivery, options.secrets, options.checkTimestamp === true)) problems.push('the signature is not valid for any secret given');
  let event: { type?: unknown; data?: { lockId?: unknown; entry?: Entry; checkpoint?: { checkpoint?: string; treeSize?: number } } };
  try {
    event = JSON.parse(delivery.body) as typeof event;
  } catch {
    return { id, ok: false, problems: [...problems, 'the body is not JSON'], type: null, entry: null };
  }
  const type = typeof event.type === 'string' ? event.type : null;
  const entry = event.data?.entry;
  if (type === 'webhook.test' || entry === undefined) {
    if (type !== 'webhook.test') problems.push('no audit entry in the delivery');
    return { id, ok: problems.length === 0, problems, type, entry: null };
  }
  checkEntry(entry, problems);
  if (event.data?.lockId !== entry.lockId) problems.push('data.lockId is not the entry\'s lock');
  try {
    const checkpoint = openCheckpoint(String(event.data?.checkpoint?.checkpoint ?? ''), parseVerifierKey(options.verifierKey));
    if (checkpoint.size !== event.data?.checkpoint?.treeSize) problems.push('checkpoint.treeSize is not the signed size');
    const proof = (entry.proof ?? []).map((hash) => Buffer.from(hash, 'base64'));
    if (entry.proof === null || !verifyInclusion(Buffer.from(entry.hash, 'hex'), entry.leafIndex, checkpoint.size, proof, checkpoint.root)) {
      problems.push('the inclusion proof does not lead to the signed root');
    }
  } catch (err) {
    problems.push(`checkpoint: ${(err as Error).message}`);
  }
  return { id, ok: problems.length === 0, problems, type, entry: { id: entry.id, lockId: entry.lockId, leafIndex: entry.leafIndex, hash: entry.hash, previousHash: entry.previousHash } };
}

/**
 * Checks every delivery a receiver kept (any order, retries included) and reports the gaps: per
 * lock, in log order, an entry whose previousHash is not the hash of the entry received before it.
 * An endpoint filtered to some event types skips the others' entries, so its links break where
 * those were: subscribe to every type of a lock to see each gap (docs/webhooks.md).
 */
export function verifyWebhookDeliveries(deliveries: readonly ReceivedWebhook[], options: WebhookVerifyOptions): WebhookReport {
  const checked = deliveries.map((delivery) => verifyWebhookDelivery(delivery, options));
  const byLock = new Map<string, Map<string, NonNullable<CheckedDelivery['entry']>>>();
  for (const { ok, entry } of checked) {
    if (!ok || entry === null) continue;
    const entries = byLock.get(entry.lockId) ?? new Map();
    entries.set(entry.id, entry);
    byLock.set(entry.lockId, entries);
  }
  const gaps: WebhookGap[] = [];
  for (const [lockId, entries] of byLock) {
    const ordered = [...entries.values()].sort((a, b) => a.leafIndex - b.leafIndex);
    for (let i = 1; i < ordered.length; i += 1) {
      const before = ordered[i - 1]!;
      const after = ordered[i]!;
      if (after.previousHash !== before.hash) gaps.push({ lockId, afterEntryId: before.id, beforeEntryId: after.id, missingHash: after.previousHash });
    }
  }
  return { ok: checked.every((c) => c.ok) && gaps.length === 0, deliveries: checked, gaps };
}
