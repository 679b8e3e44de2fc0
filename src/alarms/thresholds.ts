import { ALARM_KINDS, type AlarmKind } from './kinds.js';

/**
 * When the timed alarms of a lock are raised (issue 31 point 2): each lock may set its own
 * (PUT /device/{id}/alarm-settings); a value it never set is the default here.
 */
export interface AlarmThresholds {
  /** The door open this long (seconds) raises `held_open`. */
  heldOpenSeconds: number;
  /** The lock offline this long (seconds) raises `offline`. */
  offlineSeconds: number;
  /** This many refused unlocks within `refusedWindowSeconds` raise `refused_unlocks`. */
  refusedUnlocks: number;
  refusedWindowSeconds: number;
}

export const DEFAULT_THRESHOLDS: AlarmThresholds = { heldOpenSeconds: 60, offlineSeconds: 600, refusedUnlocks: 5, refusedWindowSeconds: 300 };

/** The bounds the API accepts, inclusive. */
export const THRESHOLD_BOUNDS: Record<keyof AlarmThresholds, { minimum: number; maximum: number }> = {
  heldOpenSeconds: { minimum: 5, maximum: 86_400 },
  offlineSeconds: { minimum: 60, maximum: 7 * 86_400 },
  refusedUnlocks: { minimum: 2, maximum: 1000 },
  refusedWindowSeconds: { minimum: 10, maximum: 86_400 },
};

/** Whether the lock's administrators get an email when an alarm of `kind` is raised (every kind, unless turned off). */
export function mailsKind(row: { mail_off: string | null } | undefined, kind: AlarmKind): boolean {
  return !(row?.mail_off ?? '').split(',').includes(kind);
}

/** Every kind's email choice. */
export function mailChoices(row: { mail_off: string | null } | undefined): Record<AlarmKind, boolean> {
  return Object.fromEntries(ALARM_KINDS.map((kind) => [kind, mailsKind(row, kind)])) as Record<AlarmKind, boolean>;
}

/** The stored form of `choices`: the kinds turned off; null when none is. */
export function mailOff(choices: Record<AlarmKind, boolean>): string | null {
  const off = ALARM_KINDS.filter((kind) => !choices[kind]);
  return off.length === 0 ? null : off.join(',');
}

/** A lock's stored thresholds (null columns, or no row) over the defaults. */
export function effectiveThresholds(row: { held_open_seconds: number | null; offline_seconds: number | null; refused_unlocks: number | null; refused_window_seconds: number | null } | undefined): AlarmThresholds {
  return {
    heldOpenSeconds: row?.held_open_seconds ?? DEFAULT_THRESHOLDS.heldOpenSeconds,
    offlineSeconds: row?.offline_seconds ?? DEFAULT_THRESHOLDS.offlineSeconds,
    refusedUnlocks: row?.refused_unlocks ?? DEFAULT_THRESHOLDS.refusedUnlocks,
    refusedWindowSeconds: row?.refused_window_seconds ?? DEFAULT_THRESHOLDS.refusedWindowSeconds,
  };
}

/** Whether the refused unlocks (newest first, Unix seconds) hold the alarm's condition at `now`. */
export function refusalsHold(newestFirst: readonly number[], thresholds: Pick<AlarmThresholds, 'refusedUnlocks' | 'refusedWindowSeconds'>, now: number): boolean {
  const oldest = newestFirst[thresholds.refusedUnlocks - 1];
  return oldest !== undefined && oldest >= now - thresholds.refusedWindowSeconds;
}
