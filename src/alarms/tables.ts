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

/** A lock's own alarm thresholds (migration 0070); a null column: the default (thresholds.ts). */
export interface LockAlarmSettingsTable {
  lock_id: string;
  held_open_seconds: number | null;
  offline_seconds: number | null;
  refused_unlocks: number | null;
  refused_window_seconds: number | null;
  /** The kinds not emailed, comma-separated (migration 0071); null: every kind is. */
  mail_off: string | null;
  updated: number;
}

export interface AlarmTables {
  lock_alarms: LockAlarmsTable;
  lock_alarm_settings: LockAlarmSettingsTable;
}
