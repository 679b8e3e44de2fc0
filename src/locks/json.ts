import type { TimeRequirement, UnlockBetweenWindow, UsageRequirements } from '../access/types.js';

/**
 * Settings stored as JSON text, validated on the way in. A value that no longer reads as the
 * right kind (a hand-edited database) throws: failing closed beats treating an unreadable
 * restriction as "unrestricted".
 */

function parse(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`stored ${what} is not JSON`, { cause: err });
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readPermittedAddresses(text: string): string[] {
  if (text === '[]') return []; // the common case, in every row of a lock list
  const value = parse(text, 'permitted addresses');
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new Error('stored permitted addresses are not a list of strings');
  return value as string[];
}

export function readUsageRequirements(text: string): UsageRequirements {
  if (text === '{}') return {};
  const value = parse(text, 'usage requirements');
  if (!isPlainObject(value)) throw new Error('stored usage requirements are not an object');
  return value as UsageRequirements;
}

export function readUnlockBetween(text: string | null): UnlockBetweenWindow | null {
  if (text === null) return null;
  const value = parse(text, 'unlock-between window');
  if (!isPlainObject(value)) throw new Error('stored unlock-between window is not an object');
  return value as unknown as UnlockBetweenWindow;
}

/** A share's own weekly hours (migration 0040); null: none. */
export function readSchedule(text: string | null): TimeRequirement[] | null {
  if (text === null) return null;
  const value = parse(text, 'schedule');
  if (!Array.isArray(value) || !value.every(isPlainObject)) throw new Error('stored schedule is not a list of time requirements');
  return value as unknown as TimeRequirement[];
}
