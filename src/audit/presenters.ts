import type { LockLogRow, UserLogRow } from './queries.js';
import type { LockAuditEntry, UserAuditEntry } from './schemas.js';
import { hasSubject } from './types.js';

export function presentLockEntryV1(row: LockLogRow): LockAuditEntry {
  return { timestamp: row.timestamp, type: row.type, user: row.actor_user_id, message: row.message };
}

export function presentLockEntryV2(row: LockLogRow): LockAuditEntry {
  return {
    timestamp: row.timestamp,
    type: row.type,
    user: row.actor_user_id,
    email: row.actor_email,
    displayName: row.actor_display_name,
    message: row.message,
  };
}

export function presentUserEntry(row: UserLogRow): UserAuditEntry {
  const entry: UserAuditEntry = {
    deviceId: row.lock_id,
    timestamp: row.timestamp,
    type: row.type,
    issuer: { userId: row.actor_user_id },
    rejected: row.rejected === 1,
  };
  if (hasSubject(row.type) && row.subject_user_id !== null) entry.subject = { userId: row.subject_user_id, email: row.subject_email };
  return entry;
}
