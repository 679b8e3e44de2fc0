import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a presented secret equals the expected one, in time that depends on neither (hashing
 * first makes the lengths equal): bearer secrets of the broker hook and the metrics endpoint,
 * the service's own broker password.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(expected).digest());
}
