import type { DayName, Hours } from '../api/types';
import { Check, DAY_NAMES, Field, TimeField, dayName } from './ui';

export const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
export const OFFICE_HOURS = (): Hours => ({ start: '08:00', end: '18:00', timezone: localZone(), days: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] });

/** Days in full, consecutive runs joined: Monday to Friday, Saturday. */
function describeDays(days: readonly string[]): string {
  const order = DAY_NAMES.filter((day) => days.includes(day));
  const runs: string[][] = [];
  for (const day of order) {
    const last = runs.at(-1);
    if (last && DAY_NAMES.indexOf(last.at(-1) as DayName) === DAY_NAMES.indexOf(day) - 1) last.push(day);
    else runs.push([day]);
  }
  return runs.map((run) => (run.length > 2 ? `${dayName(run[0]!)} to ${dayName(run.at(-1)!)}` : run.map(dayName).join(', '))).join(', ');
}

/** A share's hours in words: "Monday to Friday, 08:00–18:00 (Europe/London)". */
export function describeHours(schedule: readonly Hours[]): string {
  return schedule.map((h) => `${describeDays(h.days)}, ${h.start}–${h.end} (${h.timezone})`).join('; ');
}

export function DaysField({ days, onDays, legend }: { days: DayName[]; onDays: (days: DayName[]) => void; legend: string }) {
  return (
    <fieldset class="days">
      <legend>{legend}</legend>
      {DAY_NAMES.map((day) => (
        <Check key={day} label={dayName(day)} checked={days.includes(day)} onValue={(on) => onDays(on ? [...days, day] : days.filter((d) => d !== day))} />
      ))}
    </fieldset>
  );
}

/** The weekly hours of a share being made: days, from, until and time zone. */
export function HoursFields({ hours, onHours }: { hours: Hours; onHours: (hours: Hours) => void }) {
  return (
    <div class="hours">
      <DaysField legend="Days" days={hours.days} onDays={(days) => onHours({ ...hours, days })} />
      <TimeField label="From" required value={hours.start} onValue={(start) => onHours({ ...hours, start })} />
      <TimeField label="Until" required value={hours.end} onValue={(end) => onHours({ ...hours, end })} />
      <Field label="Time zone of these hours" required value={hours.timezone} onValue={(timezone) => onHours({ ...hours, timezone })} hint="An IANA name, e.g. Europe/London." />
    </div>
  );
}

/** What the member sees of their own hours on a lock (none: nothing). */
export function YourHours({ schedule }: { schedule?: readonly Hours[] | undefined }) {
  if (!schedule || schedule.length === 0) return null;
  return <p class="hours-note" data-hours="true">Your hours: {describeHours(schedule)}</p>;
}
