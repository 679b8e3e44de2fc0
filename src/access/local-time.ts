import { DAY_NAMES, type DayName } from './types.js';

/** The wall clock of a timezone at one instant. */
export interface LocalTimeParts {
  day: DayName;
  /** Whole minutes since local midnight, 0..1439 (seconds are dropped). */
  minutes: number;
  /** Local calendar date, YYYY-MM-DD. */
  date: string;
}

const WEEKDAYS: Record<string, DayName> = {
  Mon: 'MONDAY', Tue: 'TUESDAY', Wed: 'WEDNESDAY', Thu: 'THURSDAY', Fri: 'FRIDAY', Sat: 'SATURDAY', Sun: 'SUNDAY',
};

/**
 * Building an Intl.DateTimeFormat costs tens of microseconds and formatting with one about six, so
 * each timezone keeps its formatter and its last answer. The answer is reused within the same UTC
 * minute, which is exact for offsets in whole minutes (every zone since 1972); under load, when
 * the cost matters, most unlocks then skip Intl altogether. Intl accepts any letter case, so
 * the names are not a closed set: the map is emptied when it reaches MAX_ZONES.
 */
interface ZoneClock {
  formatter: Intl.DateTimeFormat;
  minute: number;
  parts: Readonly<LocalTimeParts> | null;
}

const zones = new Map<string, ZoneClock>();
const MAX_ZONES = 1000;

/** Throws a RangeError for a timezone Intl does not know. */
function createFormatter(timezone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    weekday: 'short',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
}

function zoneClock(timezone: string): ZoneClock {
  let zone = zones.get(timezone);
  if (zone === undefined) {
    zone = { formatter: createFormatter(timezone), minute: Number.NaN, parts: null };
    if (zones.size >= MAX_ZONES) zones.clear();
    zones.set(timezone, zone);
  }
  return zone;
}

/**
 * True when `timezone` is a name the runtime's time zone database knows (case-insensitive, as Intl
 * is). Used on input, so it does not fill the cache with names nobody may ever store.
 */
export function isKnownTimezone(timezone: string): boolean {
  if (zones.has(timezone)) return true;
  try {
    createFormatter(timezone);
    return true;
  } catch {
    return false;
  }
}

/**
 * Day, minute of day and date on the wall clock of `timezone` at `epochSeconds` (Unix seconds,
 * fractions allowed). Intl applies the zone's rules, so DST transitions are exact. Throws a
 * RangeError for an unknown timezone; stored requirements are validated before they get here.
 */
export function localTimeParts(epochSeconds: number, timezone: string): Readonly<LocalTimeParts> {
  const zone = zoneClock(timezone);
  const minute = Math.floor(epochSeconds / 60);
  if (zone.minute !== minute || zone.parts === null) {
    zone.parts = Object.freeze(readParts(zone.formatter, minute * 60_000, timezone));
    zone.minute = minute;
  }
  return zone.parts;
}

function readParts(formatter: Intl.DateTimeFormat, epochMilliseconds: number, timezone: string): LocalTimeParts {
  let weekday = '';
  let year = '';
  let month = '';
  let day = '';
  let hour = 0;
  let minute = 0;
  for (const part of formatter.formatToParts(new Date(epochMilliseconds))) {
    switch (part.type) {
      case 'weekday': weekday = part.value; break;
      case 'year': year = part.value; break;
      case 'month': month = part.value; break;
      case 'day': day = part.value; break;
      case 'hour': hour = Number(part.value); break;
      case 'minute': minute = Number(part.value); break;
      default: break;
    }
  }
  const dayName = WEEKDAYS[weekday];
  if (dayName === undefined || year === '') throw new RangeError(`cannot read local time in ${timezone}`);
  // Some ICU versions write midnight as 24 even with h23; fold it back.
  return { day: dayName, minutes: (hour % 24) * 60 + minute, date: `${year.padStart(4, '0')}-${month}-${day}` };
}

/** The day before `day` in the week. */
export function previousDay(day: DayName): DayName {
  const index = DAY_NAMES.indexOf(day);
  return DAY_NAMES[(index + 6) % 7] as DayName;
}

/** The calendar date before `date` (YYYY-MM-DD), by proleptic Gregorian arithmetic. */
export function previousDate(date: string): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day - 1); // setUTCFullYear, unlike Date.UTC, keeps years 0..99
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  return `${pad(utc.getUTCFullYear(), 4)}-${pad(utc.getUTCMonth() + 1, 2)}-${pad(utc.getUTCDate(), 2)}`;
}
