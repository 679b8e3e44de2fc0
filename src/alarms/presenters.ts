import type { AlarmRow } from './queries.js';
import type { LockAlarm } from './schemas.js';

export function presentAlarm(row: AlarmRow): LockAlarm {
  return { id: row.id, kind: row.kind as LockAlarm['kind'], raisedAt: row.raised_at, clearedAt: row.cleared_at };
}
