import type { Redis } from 'ioredis';
import ipaddr from 'ipaddr.js';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { errors } from '../errors/catalogue.js';
import { LocalWindows } from '../limits/local-windows.js';

export interface RateLimit {
  /** Counts one event for `key`; throws 429 with Retry-After when the limit is exceeded. */
  consume(key: string, points?: number): Promise<void>;
  /**
   * Counts one event for `key` at once when the counts are this process's own (throwing 429 like
   * `consume`); false, counting nothing, when they are shared through Redis and `consume` must be awaited.
   */
  consumeHere(key: string): boolean;
  /** Forgets `key` (e.g. failed logins after a successful one). */
  reset(key: string): Promise<void>;
  /** Gives back `points` counted for `key` (an attempt counted beforehand that proved harmless). */
  refund(key: string, points?: number): Promise<void>;
  /** Throws 429 if `key` is already over the limit, without counting. */
  check(key: string): Promise<void>;
}

export interface RateLimitOptions {
  name: string;
  points: number;
  durationSeconds: number;
  redis: Redis | null;
}

/**
 * The key a client address is counted under. An IPv6 client is counted by its /64: a subscriber
 * is usually handed a whole /64, and counting each of its addresses apart would let one client
 * spread over endless keys. IPv4 (and IPv4-mapped IPv6) counts per address.
 */
export function addressKey(ip: string): string {
  if (!ip.includes(':') || !ipaddr.IPv6.isValid(ip)) return ip;
  const address = ipaddr.IPv6.parse(ip);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address().toString();
  return `${address.parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}

/** A fixed-window limiter, in memory or shared across instances through Redis. */
export function createRateLimit(options: RateLimitOptions): RateLimit {
  return options.redis ? sharedRateLimit(options, options.redis) : localRateLimit(options);
}

function localRateLimit(options: RateLimitOptions): RateLimit {
  const windows = new LocalWindows(options.points, options.durationSeconds * 1000);
  const consumeHere = (key: string, points = 1): true => {
    const msBeforeNext = windows.consume(key, points);
    if (msBeforeNext !== null) throw errors.tooManyRequests(msBeforeNext / 1000);
    return true;
  };
  return {
    consumeHere,
    async consume(key, points) {
      consumeHere(key, points);
    },
    async reset(key) {
      windows.forget(key);
    },
    async refund(key, points = 1) {
      windows.refund(key, points);
    },
    async check(key) {
      const msBeforeNext = windows.exhausted(key);
      if (msBeforeNext !== null) throw errors.tooManyRequests(msBeforeNext / 1000);
    },
  };
}

function sharedRateLimit(options: RateLimitOptions, redis: Redis): RateLimit {
  const limiter = new RateLimiterRedis({
    keyPrefix: `latchkey:rl:${options.name}`,
    points: options.points,
    duration: options.durationSeconds,
    storeClient: redis,
    useRedisPackage: false,
  });
  return {
    consumeHere: () => false,
    async consume(key, points = 1) {
      try {
        await limiter.consume(key, points);
      } catch (err) {
        if (err instanceof RateLimiterRes) throw errors.tooManyRequests(err.msBeforeNext / 1000);
        throw err;
      }
    },
    async reset(key) {
      await limiter.delete(key);
    },
    async refund(key, points = 1) {
      await limiter.reward(key, points);
    },
    async check(key) {
      const res = await limiter.get(key);
      if (res && res.consumedPoints >= options.points) throw errors.tooManyRequests(res.msBeforeNext / 1000);
    },
  };
}
