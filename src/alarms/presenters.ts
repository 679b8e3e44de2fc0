import type { AlarmRow } from './queries.js';
import type { LockAlarm, SiteAlarm } from './schemas.js';

export function presentAlarm(row: AlarmRow): LockAlarm {
  return { id: row.id, kind: row.kind as LockAlarm['kind'], raisedAt: row.raised_at, clearedAt: row.cleared_at };
}

export function presentSiteAlarm(row: AlarmRow): SiteAlarm {
  return { ...presentAlarm(row), lockId: row.lock_id };
}
