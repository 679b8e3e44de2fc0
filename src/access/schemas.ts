import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { isKnownTimezone } from './local-time.js';
import { DAY_NAMES, type TimeRequirement, type UnlockBetweenWindow, type UsageRequirements } from './types.js';

/**
 * TypeBox schemas of the access rules a lock's settings hold, usable as Fastify route schemas and
 * in the OpenAPI document. JSON Schema cannot ask the time zone database whether a name exists or
 * the calendar whether 2025-02-30 does, so `validateUsageRequirements` / `validateUnlockBetween`
 * add those checks; they return a message for a 400, or null when the value is acceptable.
 */

export const MAX_TIME_REQUIREMENTS = 32;
export const MAX_EXCEPTION_DATES = 1000;

export const LocalTimeSchema = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
  description: 'local time HH:mm, 00:00 to 23:59',
});

export const TimezoneSchema = Type.String({
  // IANA form (Region/City, UTC, Etc/GMT+5); rules out the UTC-offset strings some runtimes accept.
  pattern: '^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$',
  maxLength: 64,
  description: 'IANA timezone name, e.g. Europe/London',
});

export const DayNameSchema = Type.Union(DAY_NAMES.map((day) => Type.Literal(day)), {
  description: 'upper-case day name, MONDAY to SUNDAY',
});

const DaysSchema = Type.Array(DayNameSchema, {
  minItems: 1,
  maxItems: 7,
  uniqueItems: true,
  description: 'an array of one to seven distinct day names, MONDAY to SUNDAY',
});

export const LocalDateSchema = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'local date YYYY-MM-DD' });

export const TimeRequirementSchema = Type.Object(
  { start: LocalTimeSchema, end: LocalTimeSchema, timezone: TimezoneSchema, days: DaysSchema },
  { additionalProperties: false },
);

export const LocationRequirementSchema = Type.Object(
  {
    latitude: Type.Number({ minimum: -90, maximum: 90, description: 'latitude in degrees, -90 to 90' }),
    longitude: Type.Number({ minimum: -180, maximum: 180, description: 'longitude in degrees, -180 to 180' }),
    enabled: Type.Optional(Type.Boolean({ description: 'true or false' })),
    radius: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'radius in metres, greater than 0 (default 100)' })),
    accuracy: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'required accuracy in metres, greater than 0 (default 200)' })),
  },
  { additionalProperties: false },
);

export const UsageRequirementsSchema = Type.Object(
  {
    time: Type.Optional(Type.Array(TimeRequirementSchema, { maxItems: MAX_TIME_REQUIREMENTS, description: `an array of at most ${MAX_TIME_REQUIREMENTS} time requirements` })),
    location: Type.Optional(LocationRequirementSchema),
  },
  { additionalProperties: false },
);

export const UnlockBetweenWindowSchema = Type.Object(
  {
    start: LocalTimeSchema,
    end: LocalTimeSchema,
    timezone: TimezoneSchema,
    days: DaysSchema,
    exceptions: Type.Optional(Type.Array(LocalDateSchema, { maxItems: MAX_EXCEPTION_DATES, description: `an array of at most ${MAX_EXCEPTION_DATES} dates YYYY-MM-DD` })),
  },
  { additionalProperties: false },
);

// The schemas and the hand-written types must describe the same values.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _usageMatches: Same<Static<typeof UsageRequirementsSchema>, UsageRequirements> = true;
const _unlockMatches: Same<Static<typeof UnlockBetweenWindowSchema>, UnlockBetweenWindow> = true;

/** `/time/0/start` under `usageRequirements` → `usageRequirements.time[0].start`. */
function label(root: string, pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .reduce((out, segment) => (/^[0-9]+$/.test(segment) ? `${out}[${segment}]` : `${out}.${segment.replace(/~1/g, '/').replace(/~0/g, '~')}`), root);
}

function firstSchemaError(schema: TSchema, value: unknown, root: string): string | null {
  const error = Value.Errors(schema, value).First();
  if (error === undefined) return null;
  if (error.type === ValueErrorType.ObjectRequiredProperty) return `${label(root, error.path)}: required`;
  const description = (error.schema as { description?: unknown }).description;
  const expected = typeof description === 'string' ? `expected ${description}` : error.message.toLowerCase();
  return `${label(root, error.path)}: ${expected}`;
}

/** A real calendar date in YYYY-MM-DD (the schema only checks the shape). */
export function isCalendarDate(text: string): boolean {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function timezoneError(timezone: string, at: string): string | null {
  return isKnownTimezone(timezone) ? null : `${at}: unknown timezone "${timezone}"`;
}

/** Null when `value` is valid usage requirements; otherwise a message for a 400. */
export function validateUsageRequirements(value: unknown, root = 'usageRequirements'): string | null {
  const schemaError = firstSchemaError(UsageRequirementsSchema, value, root);
  if (schemaError !== null) return schemaError;
  const requirements = value as UsageRequirements;
  for (const [index, requirement] of (requirements.time ?? []).entries()) {
    const error = timezoneError(requirement.timezone, `${root}.time[${index}].timezone`);
    if (error !== null) return error;
  }
  return null;
}

/** A share's own weekly hours (ADD_USER `schedule`, shared decisions §8): time requirements, the member may operate only inside one. */
export function scheduleSchema(description = `the share's weekly hours: one to ${MAX_TIME_REQUIREMENTS} time requirements (start, end, timezone, days); the member may operate the lock only inside one of them`) {
  // Typed as TimeRequirement[]: the day names' union, built from a list, reads as never[] in route types.
  return Type.Unsafe<TimeRequirement[]>(Type.Array(TimeRequirementSchema, { minItems: 1, maxItems: MAX_TIME_REQUIREMENTS, description }));
}
export const ScheduleSchema = scheduleSchema();

/** Null when `value` is a valid schedule; otherwise a message for a 400. */
export function validateSchedule(value: unknown, root = 'schedule'): string | null {
  const schemaError = firstSchemaError(ScheduleSchema, value, root);
  if (schemaError !== null) return schemaError;
  for (const [index, requirement] of (value as TimeRequirement[]).entries()) {
    const error = timezoneError(requirement.timezone, `${root}[${index}].timezone`);
    if (error !== null) return error;
  }
  return null;
}

/**
 * Null when `value` is a valid unlock-between window; otherwise a message for a 400. A null
 * window (removal, in MUTATE_SETTING) is the caller's to handle before calling this.
 */
export function validateUnlockBetween(value: unknown, root = 'unlockBetween'): string | null {
  const schemaError = firstSchemaError(UnlockBetweenWindowSchema, value, root);
  if (schemaError !== null) return schemaError;
  const window = value as UnlockBetweenWindow;
  const error = timezoneError(window.timezone, `${root}.timezone`);
  if (error !== null) return error;
  const badDate = (window.exceptions ?? []).findIndex((date) => !isCalendarDate(date));
  return badDate === -1 ? null : `${root}.exceptions[${badDate}]: "${window.exceptions?.[badDate]}" is not a calendar date`;
}
