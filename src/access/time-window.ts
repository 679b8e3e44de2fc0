import { localTimeParts, previousDate, previousDay, type LocalTimeParts } from './local-time.js';
import type { DayName, TimeRequirement, UnlockBetweenWindow } from './types.js';

/**
 * Weekly windows on a timezone's wall clock (decisions §4, time requirement).
 *
 * - A window is inside from `start` (inclusive) to `end` (exclusive), at minute resolution, on
 *   each day named in `days`, where the day is the local day in the window's own timezone.
 * - A window whose `end` is earlier than its `start` crosses midnight and belongs to the day it
 *   starts on: `22:00`–`02:00` on FRIDAY covers Friday 22:00 to Saturday 02:00, not Friday
 *   00:00–02:00.
 * - `start === end` is a whole day's window starting at `start` (so `00:00`–`00:00` is the whole
 *   of each named day); an empty window would be useless.
 * - Local times come from the zone's rules, so DST is honoured: on a spring-forward night the
 *   skipped hour never occurs, on a fall-back night the repeated hour is inside twice.
 * - An unknown timezone (only possible in data written before a tz database change) fails
 *   closed: the window is never inside.
 */

/** Which occurrence of a window covers a local instant: the one begun today or the one begun yesterday. */
type Occurrence = 'today' | 'yesterday' | null;

const HH_MM = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;

/** Minutes since midnight of `HH:mm`; null for anything else (validated on input, so only old or corrupt data). */
function minutesOf(time: string): number | null {
  const match = HH_MM.exec(time);
  return match === null ? null : Number(match[1]) * 60 + Number(match[2]);
}

function coveringOccurrence(window: { start: string; end: string; days: readonly DayName[] }, at: LocalTimeParts): Occurrence {
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  if (start === null || end === null) return null; // fail closed
  if (start < end) {
    return window.days.includes(at.day) && at.minutes >= start && at.minutes < end ? 'today' : null;
  }
  if (window.days.includes(at.day) && at.minutes >= start) return 'today';
  if (window.days.includes(previousDay(at.day)) && at.minutes < end) return 'yesterday';
  return null;
}

function localPartsOrNull(now: number, timezone: string): LocalTimeParts | null {
  try {
    return localTimeParts(now, timezone);
  } catch {
    return null;
  }
}

/** True when `now` (Unix seconds) falls in the weekly window `req`. */
export function isWithinTimeRequirement(req: TimeRequirement, now: number): boolean {
  const at = localPartsOrNull(now, req.timezone);
  return at !== null && coveringOccurrence(req, at) !== null;
}

/** True when there are no time requirements, or `now` is inside at least one of them. */
export function meetsTimeRequirements(reqs: readonly TimeRequirement[] | undefined, now: number): boolean {
  if (reqs === undefined || reqs.length === 0) return true;
  return reqs.some((req) => isWithinTimeRequirement(req, now));
}

/**
 * True when `now` is inside the unlock-between window and the occurrence covering it did not
 * start on an exception date. Exceptions are local dates and, like crossing midnight, follow the
 * day an occurrence starts on: excepting 2025-12-31 for `22:00`–`02:00` skips 31 Dec 22:00 to
 * 1 Jan 02:00 and leaves 30 Dec 22:00 to 31 Dec 02:00 alone.
 */
export function isWithinUnlockBetween(window: UnlockBetweenWindow, now: number): boolean {
  const at = localPartsOrNull(now, window.timezone);
  if (at === null) return false;
  const occurrence = coveringOccurrence(window, at);
  if (occurrence === null) return false;
  const startedOn = occurrence === 'today' ? at.date : previousDate(at.date);
  return !(window.exceptions ?? []).includes(startedOn);
}
