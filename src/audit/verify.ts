import type { Executor } from '../db/transaction.js';
import { verifyChain, type ChainedAuditEntry } from './chain.js';
import { chainPage, nextAuditedLock, type AuditRow } from './queries.js';

export type BreakReason = 'hash mismatch' | 'previous hash mismatch' | 'different lock' | 'unreadable details';

export type LockVerification = { ok: true; entries: number; lastHash: string | null } | { ok: false; entries: number; seq: number; id: string; reason: BreakReason };

export type TrailVerification =
  | { ok: true; locks: number; entries: number }
  | { ok: false; lockId: string; seq: number; id: string; reason: BreakReason; locks: number; entries: number };

/**
 * A stored row as the chain verifier reads it, in the format its `hash_version` names; null when
 * its details are not JSON. A flag other than 0/1, or a version other than 1/2/3, is passed on as it
 * is, which the hash refuses. A format-1 row's email and display-name columns are not hashed, nor
 * a format-1 or -2 row's client columns (address, user agent).
 */
export function toChainedEntry(row: AuditRow): ChainedAuditEntry | null {
  let details: object | null = null;
  if (row.details !== null) {
    try {
      details = JSON.parse(row.details) as object;
    } catch {
      return null;
    }
  }
  const flag = row.rejected as number;
  const rejected = flag === 1 ? true : flag === 0 ? false : (flag as unknown as boolean);
  const version = Number(row.hash_version);
  // One literal per format, no spreading: verify reads every entry through here.
  if (version === 1) {
    return { version, id: row.id, lockId: row.lock_id, timestamp: row.timestamp, type: row.type, actorUserId: row.actor_user_id, subjectUserId: row.subject_user_id, rejected, message: row.message, details, hash: row.hash, previousHash: row.prev_hash };
  }
  const parties = { actorEmail: row.actor_email, actorDisplayName: row.actor_display_name, subjectEmail: row.subject_email, subjectDisplayName: row.subject_display_name };
  if (version === 3) {
    const userAgent = row.user_agent_type === null ? null : { type: row.user_agent_type, version: row.user_agent_version };
    return {
      version, id: row.id, lockId: row.lock_id, timestamp: row.timestamp, type: row.type, actorUserId: row.actor_user_id, subjectUserId: row.subject_user_id,
      rejected, message: row.message, details, hash: row.hash, previousHash: row.prev_hash, ...parties, actorIp: row.actor_ip, userAgent,
    };
  }
  return {
    version: version as 2,
    id: row.id,
    lockId: row.lock_id,
    timestamp: row.timestamp,
    type: row.type,
    actorUserId: row.actor_user_id,
    subjectUserId: row.subject_user_id,
    rejected,
    message: row.message,
    details,
    hash: row.hash,
    previousHash: row.prev_hash,
    actorEmail: row.actor_email,
    actorDisplayName: row.actor_display_name,
    subjectEmail: row.subject_email,
    subjectDisplayName: row.subject_display_name,
  };
}

/** Recomputes one lock's chain in seq order, a page at a time (memory stays flat whatever its length). */
export async function verifyLockChain(db: Executor, lockId: string, pageSize = 1000): Promise<LockVerification> {
  let previousHash: string | null = null;
  let afterSeq = -1;
  let entries = 0;
  for (;;) {
    const rows = await chainPage(db, lockId, afterSeq, pageSize);
    if (rows.length === 0) return { ok: true, entries, lastHash: previousHash };
    const chained: ChainedAuditEntry[] = [];
    let unreadable: AuditRow | undefined;
    for (const row of rows) {
      const entry = toChainedEntry(row);
      if (entry === null) {
        unreadable = row;
        break;
      }
      chained.push(entry);
    }
    const result = verifyChain(chained, { previousHash });
    if (!result.ok) {
      const row = rows[result.brokenAt]!;
      return { ok: false, entries: entries + result.brokenAt, seq: row.seq, id: row.id, reason: result.reason };
    }
    if (unreadable) return { ok: false, entries: entries + chained.length, seq: unreadable.seq, id: unreadable.id, reason: 'unreadable details' };
    entries += rows.length;
    previousHash = result.lastHash;
    afterSeq = rows[rows.length - 1]!.seq;
  }
}

/** Verifies one lock's chain, or every lock's in turn; stops at the first broken entry. */
export async function verifyAuditTrail(db: Executor, options: { lockId?: string; pageSize?: number } = {}): Promise<TrailVerification> {
  let locks = 0;
  let entries = 0;
  const check = async (lockId: string): Promise<TrailVerification | null> => {
    const result = await verifyLockChain(db, lockId, options.pageSize);
    locks += 1;
    entries += result.entries;
    return result.ok ? null : { ok: false, lockId, seq: result.seq, id: result.id, reason: result.reason, locks, entries };
  };
  if (options.lockId !== undefined) {
    const broken = await check(options.lockId);
    return broken ?? { ok: true, locks: entries > 0 ? 1 : 0, entries };
  }
  for (let lockId = await nextAuditedLock(db, null); lockId !== undefined; lockId = await nextAuditedLock(db, lockId)) {
    const broken = await check(lockId);
    if (broken) return broken;
  }
  return { ok: true, locks, entries };
}
