import { validateUsageRequirements } from '../access/schemas.js';
import type { UsageRequirements } from '../access/types.js';
import { errors } from '../errors/catalogue.js';

/**
 * `settings.usageRequirements` of PUT /device/{id}, as the official SDK sends it: one part at a
 * time, `{"type": "…TimeUsageRequirementRequest", "time": [...]}` or `{"type": "…Location…",
 * "location": {...} | null}`. Each part named replaces that part only; `time: []` and
 * `location: null` remove it; `usageRequirements: null` removes both. `type` is ignored.
 * Returns the requirements to store, validated (400).
 */
export function mergeUsageRequirements(current: UsageRequirements, update: unknown): UsageRequirements {
  if (update === null) return {};
  if (typeof update !== 'object' || Array.isArray(update)) throw errors.validation('usageRequirements: expected an object or null');
  const { type: _sdkClassName, time, location, ...rest } = update as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...current, ...rest };
  if (time !== undefined) {
    if (Array.isArray(time) && time.length === 0) delete merged.time;
    else merged.time = time;
  }
  if (location !== undefined) {
    if (location === null) delete merged.location;
    else merged.location = location;
  }
  const error = validateUsageRequirements(merged);
  if (error !== null) throw errors.validation(error);
  return merged as UsageRequirements;
}
