/**
 * The alarms derived from what a lock's state reports carry (device protocol 1.2), pure and
 * unit-tested. Each kind is its own condition: a battery at 4 % has both `battery_low` and
 * `battery_critical` open (docs/decisions.md).
 */
export const ALARM_KINDS = ['jammed', 'tampered', 'battery_low', 'battery_critical'] as const;
export type AlarmKind = (typeof ALARM_KINDS)[number];

export const BATTERY_LOW_PERCENT = 20;
export const BATTERY_CRITICAL_PERCENT = 5;

/** What the lock row knows of its health; null where the lock never said. */
export interface LockHealth {
  battery: number | null;
  jammed: number | null;
  tamper: number | null;
}

/** Whether each alarm's condition holds now; kinds whose fact is unknown are left out (nothing to raise or clear). */
export function alarmConditions(health: LockHealth): Map<AlarmKind, boolean> {
  const conditions = new Map<AlarmKind, boolean>();
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
};

export function describeAlarm(kind: AlarmKind): string {
  return WORDS[kind];
}
