import type { AlarmRow } from './queries.js';
import type { LockAlarm, SiteAlarm } from './schemas.js';

export function presentAlarm(row: AlarmRow): LockAlarm {
  return { id: row.id, kind: row.kind as LockAlarm['kind'], raisedAt: row.raised_at, clearedAt: row.cleared_at };
}

export function presentSiteAlarm(row: AlarmRow): SiteAlarm {
  return { ...presentAlarm(row), lockId: row.lock_id };
}

/** Open alarms and history across several locks (a site's, or every lock the caller administers). */
export function presentSiteAlarms(alarms: { open: AlarmRow[]; history: AlarmRow[] }): { open: SiteAlarm[]; history: SiteAlarm[] } {
  return { open: alarms.open.map(presentSiteAlarm), history: alarms.history.map(presentSiteAlarm) };
}
