/**
 * The alarms of a lock. The first four are derived from what a lock's state reports carry (device
 * protocol 1.2), pure and unit-tested here; the door's (held open, forced open) from its door
 * changes, `offline` from its presence, `refused_unlocks` from refused unlocks and
 * `keypad_locked_out` from a keypad's lockout (issue 30 point 5: repeated wrong codes; it ends when
 * the lockout does), the timed ones by the alarm watch (watch.ts). Each kind is its own condition: a battery at 4 % has both
 * `battery_low` and `battery_critical` open (docs/decisions.md).
 */
export const HEALTH_ALARM_KINDS = ['jammed', 'tampered', 'battery_low', 'battery_critical'] as const;
export const ALARM_KINDS = [...HEALTH_ALARM_KINDS, 'held_open', 'forced_open', 'offline', 'refused_unlocks', 'keypad_locked_out'] as const;
export type AlarmKind = (typeof ALARM_KINDS)[number];
export type HealthAlarmKind = (typeof HEALTH_ALARM_KINDS)[number];

export const BATTERY_LOW_PERCENT = 20;
export const BATTERY_CRITICAL_PERCENT = 5;

/** What the lock row knows of its health; null where the lock never said. */
export interface LockHealth {
  battery: number | null;
  jammed: number | null;
  tamper: number | null;
}

/** Whether each alarm's condition holds now; kinds whose fact is unknown are left out (nothing to raise or clear). */
export function alarmConditions(health: LockHealth): Map<HealthAlarmKind, boolean> {
  const conditions = new Map<HealthAlarmKind, boolean>();
  if (health.jammed !== null) conditions.set('jammed', health.jammed === 1);
  if (health.tamper !== null) conditions.set('tampered', health.tamper === 1);
  if (health.battery !== null) {
    conditions.set('battery_low', health.battery <= BATTERY_LOW_PERCENT);
    conditions.set('battery_critical', health.battery <= BATTERY_CRITICAL_PERCENT);
  }
  return conditions;
}

const WORDS: Record<AlarmKind, string> = {
  jammed: 'lock jammed',
  tampered: 'lock tampered with',
  battery_low: 'battery low',
  battery_critical: 'battery critical',
  held_open: 'door held open',
  forced_open: 'door forced open',
  offline: 'lock offline',
  refused_unlocks: 'repeated refused unlocks',
  keypad_locked_out: 'keypad locked out after repeated wrong codes',
};

export function describeAlarm(kind: AlarmKind): string {
  return WORDS[kind];
}
