import type { LockLogRow, UserLogRow } from './queries.js';
import type { LockAuditEntry, UserAuditEntry } from './schemas.js';
import { hasSubject } from './types.js';

export function presentLockEntryV1(row: LockLogRow): LockAuditEntry {
  return { timestamp: row.timestamp, type: row.type, user: row.actor_user_id, message: row.message };
}

/** Why an entry was refused: its message, which names the reason (null for entries not refused). */
function rejectionReason(row: { rejected: 0 | 1; message: string }): string | null {
  return row.rejected === 1 ? row.message : null;
}

/** The SDK's `userAgent` of an entry: `{type, version}`, or null without one. */
function userAgentOf(row: { user_agent_type: string | null; user_agent_version: string | null }) {
  return row.user_agent_type === null ? null : { type: row.user_agent_type, version: row.user_agent_version };
}

/**
 * v2: the spec's fields and, for the official SDK, the user-audit shape as well. The SDK requires
 * `issuer.userId`: an event the lock reports itself (no actor) names the lock. Emails and display
 * names are the entry's own, as recorded, never today's (a viewer who is not an ADMIN of the lock
 * gets them through events/privacy.ts).
 */
export function presentLockEntryV2(row: LockLogRow): LockAuditEntry {
  const subject = hasSubject(row.type) && row.subject_user_id !== null ? { userId: row.subject_user_id, email: row.subject_email, displayName: row.subject_display_name, ip: null } : null;
  return {
    timestamp: row.timestamp,
    type: row.type,
    user: row.actor_user_id,
    email: row.actor_email,
    displayName: row.actor_display_name,
    message: row.message,
    deviceId: row.lock_id,
    issuer: { userId: row.actor_user_id ?? row.lock_id, email: row.actor_email, displayName: row.actor_display_name, ip: row.actor_ip },
    subject,
    rejected: row.rejected === 1,
    rejectionReason: rejectionReason(row),
    userAgent: userAgentOf(row),
  };
}

/**
 * The user-audit shape; the subject's email is the one recorded with the entry. `issuer.ip` only
 * for the log's own user's actions: whoever reads this log (that user, or an ADMIN of the lock,
 * who sees it in the lock's log anyway) never learns another administrator's address here.
 */
export function presentUserEntry(row: UserLogRow, logUserId: string): UserAuditEntry {
  const entry: UserAuditEntry = {
    deviceId: row.lock_id,
    timestamp: row.timestamp,
    type: row.type,
    issuer: { userId: row.actor_user_id ?? row.lock_id, ip: row.actor_user_id === logUserId ? row.actor_ip : null },
    rejected: row.rejected === 1,
    rejectionReason: rejectionReason(row),
    userAgent: userAgentOf(row),
  };
  if (hasSubject(row.type) && row.subject_user_id !== null) entry.subject = { userId: row.subject_user_id, email: row.subject_email };
  return entry;
}
