/**
 * Shapes of a lock's access rules (spec "Usage requirements", "Unlock-between window") and of the
 * facts the policy functions judge them against. Times are Unix seconds throughout.
 */

export const DAY_NAMES = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;

/** A day of the week, upper case, as the spec writes it. */
export type DayName = (typeof DAY_NAMES)[number];

/** Local wall-clock time `HH:mm`, 00:00 to 23:59. */
export type LocalTime = string;

/**
 * A weekly window on the wall clock of `timezone` (IANA name, e.g. `Europe/London`).
 * Inside from `start` (inclusive) to `end` (exclusive) on each of `days`; see time-window.ts for
 * windows that cross midnight and for `start === end`.
 */
export interface TimeRequirement {
  start: LocalTime;
  end: LocalTime;
  timezone: string;
  days: DayName[];
}

/** A circle the operation's reported position must fall in, when `enabled` is not false. */
export interface LocationRequirement {
  latitude: number;
  longitude: number;
  /** Absent means enabled: a requirement that was set is enforced unless switched off explicitly. */
  enabled?: boolean;
  /** Metres; default {@link DEFAULT_LOCATION_RADIUS}. */
  radius?: number;
  /** Worst acceptable GPS accuracy in metres; default {@link DEFAULT_LOCATION_ACCURACY}. */
  accuracy?: number;
}

export const DEFAULT_LOCATION_RADIUS = 100;
export const DEFAULT_LOCATION_ACCURACY = 200;

/** A lock's usage requirements; both parts optional, `{}` means unrestricted. */
export interface UsageRequirements {
  time?: TimeRequirement[];
  location?: LocationRequirement;
}

/** The lock's automatic unlock schedule: a time window with dates (YYYY-MM-DD, local) it skips. */
export interface UnlockBetweenWindow {
  start: LocalTime;
  end: LocalTime;
  timezone: string;
  days: DayName[];
  exceptions?: string[];
}

export type MemberRole = 'ADMIN' | 'USER';

/** One user's enrolment on a lock; `start`/`end` are Unix seconds, null meaning unbounded. */
export interface Member {
  userId: string;
  role: MemberRole;
  start: number | null;
  end: number | null;
  /** The share's own weekly hours (shared decisions §8); null or absent: none. */
  schedule?: TimeRequirement[] | null;
}

/** The position a signed operation carries (decisions §4, location requirement). */
export interface OperationLocation {
  latitude: number;
  longitude: number;
  /** Metres, as reported by the device; smaller is better. */
  accuracy: number;
}
