import { isMemberActive } from './member-policy.js';
import { meetsTimeRequirements } from './time-window.js';
import type { TimeRequirement } from './types.js';

/**
 * The lock's rule for a keypad code (issue 30, device protocol 1.5), pure: the simulator and the
 * bridge (src/lock-edge/keypad.ts) apply it to the codes their config carries, on their own clock.
 */

/**
 * Whether an entered code opens the door now: inside its window and schedule, uses left, and (a
 * member's code) the holder active on the lock and inside their own weekly hours. The lock's rule.
 */
export function codeOpensNow(
  code: { start?: number | undefined; end?: number | undefined; schedule?: TimeRequirement[] | undefined; maxUses?: number | undefined },
  uses: number,
  holder: { start: number | null; end: number | null; schedule?: TimeRequirement[] | null } | null,
  now: number,
): { ok: true } | { ok: false; reason: 'outside_window' | 'outside_schedule' | 'used_up' | 'holder_inactive' } {
  if ((code.start !== undefined && now < code.start) || (code.end !== undefined && now >= code.end)) return { ok: false, reason: 'outside_window' };
  if (code.maxUses !== undefined && uses >= code.maxUses) return { ok: false, reason: 'used_up' };
  if (holder !== null && !isMemberActive(holder, now)) return { ok: false, reason: 'holder_inactive' };
  if (!meetsTimeRequirements(code.schedule, now) || (holder?.schedule != null && !meetsTimeRequirements(holder.schedule, now))) return { ok: false, reason: 'outside_schedule' };
  return { ok: true };
}

