/** One alarm of a lock (migration 0060): open while `cleared_at` is null. */
export interface LockAlarmsTable {
  id: string;
  lock_id: string;
  /** An AlarmKind (kinds.ts). */
  kind: string;
  /** Unix seconds with fraction. */
  raised_at: number;
  cleared_at: number | null;
}

export interface AlarmTables {
  lock_alarms: LockAlarmsTable;
}
