import { setTimeout as sleep } from 'node:timers/promises';
import { addressKey } from './address-key.js';
import { LocalWindows } from './local-windows.js';
import type { BrokerPolicy } from '../mqtt/broker.js';

/**
 * Failed lock logins on the embedded broker, counted in this process (the broker is per instance;
 * docs/decisions.md "Abuse limits", docs/device-protocol.md "Connecting").
 *
 * - Per client address (IPv6 by /64): every login counts while it is checked and a success is given
 *   back, so what counts is failures plus logins in flight. Past the limit the address is refused
 *   (CONNACK 5) without its secret being checked: parallel connections cannot outrun the count.
 * - Per lock id: failures only slow the wrong answers down (a back-off that doubles every `perLock`
 *   failures); a right secret is always checked and answered at once, so a guesser at another
 *   address cannot lock the real lock out.
 * - Every refusal (wrong secret or throttled) is answered only after a delay, so a guesser gets
 *   few answers a second per connection. Every client is a network client (the service's own link
 *   uses the broker's API, not a login), so none is exempt.
 */
export interface BrokerLoginLimits {
  perAddress: number;
  perLock: number;
  windowMs: number;
  /** Delay before a refusal; doubled for a lock id every `perLock` failures, up to `maxDelayMs`. */
  delayMs: number;
  maxDelayMs: number;
}

export const BROKER_LOGIN_LIMITS: BrokerLoginLimits = { perAddress: 30, perLock: 10, windowMs: 60_000, delayMs: 1000, maxDelayMs: 8000 };

/** `policy` with its logins throttled as described above. */
export function throttleLogins<Identity>(
  policy: BrokerPolicy<Identity>,
  limits: BrokerLoginLimits = BROKER_LOGIN_LIMITS,
  wait: (ms: number) => Promise<unknown> = sleep,
  /** The windows' clock in milliseconds (the service's ctx.now). */
  now: () => number = Date.now,
): BrokerPolicy<Identity> {
  const addresses = new LocalWindows(limits.perAddress, limits.windowMs, now);
  const lockFailures = new LocalWindows(limits.perLock, limits.windowMs, now);
  const backOff = (lockKey: string): number => {
    const doublings = Math.floor(Math.max(0, lockFailures.count(lockKey) - 1) / limits.perLock);
    return Math.min(limits.maxDelayMs, limits.delayMs * 2 ** Math.min(doublings, 16));
  };
  return {
    ...policy,
    async login(clientId, username, password, peer, address) {
      // No address: a socket closed before its login was looked at. No client is exempt.
      const from = address === undefined ? 'unknown' : addressKey(address);
      if (addresses.consume(from, 1) !== null) {
        await wait(limits.delayMs);
        return { ok: false, reason: 'throttled' };
      }
      let decision: Awaited<ReturnType<typeof policy.login>>;
      try {
        decision = await policy.login(clientId, username, password, peer);
      } catch (err) {
        addresses.refund(from, 1);
        throw err;
      }
      if (decision.ok) {
        addresses.refund(from, 1);
        return decision;
      }
      const lockKey = (username ?? '').slice(0, 64);
      lockFailures.consume(lockKey, 1);
      await wait(backOff(lockKey));
      return decision;
    },
  };
}
