import { isWithinUnlockBetween } from '../access/time-window.js';
import type { UnlockBetweenWindow } from '../access/types.js';

/**
 * The unlock-between window as a lock applies it (docs/device-protocol.md). The lock must agree
 * with the service to the minute, so this is the service's own definition
 * (src/access/time-window.ts, Intl-based and DST-correct), not a second implementation:
 *
 * - inside from `start` (inclusive) to `end` (exclusive) of the window's `timezone` wall clock,
 *   on the local days named in `days`;
 * - `end` before `start` crosses midnight and belongs to the day it starts on;
 *   `start === end` is a whole day from `start`;
 * - `exceptions` are local dates (YYYY-MM-DD) on which an occurrence that *starts* that day is
 *   skipped;
 * - an unknown timezone is never inside (fail closed: the door stays locked).
 */
export function isInsideUnlockWindow(window: UnlockBetweenWindow | null | undefined, nowSeconds: number): boolean {
  return window !== null && window !== undefined && isWithinUnlockBetween(window, nowSeconds);
}

/**
 * Milliseconds until the next whole minute of `nowSeconds`: the next instant the answer of
 * isInsideUnlockWindow can change (windows have minute resolution and today's UTC offsets are
 * whole minutes), so a lock re-evaluates then instead of polling.
 */
export function msUntilNextMinute(nowSeconds: number): number {
  const ms = Math.floor(nowSeconds * 1000);
  return 60_000 - (((ms % 60_000) + 60_000) % 60_000);
}
