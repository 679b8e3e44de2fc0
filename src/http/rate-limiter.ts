import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { errors } from '../errors/catalogue.js';

export interface RateLimit {
  /** Counts one event for `key`; throws 429 with Retry-After when the limit is exceeded. */
  consume(key: string, points?: number): Promise<void>;
  /** Forgets `key` (e.g. failed logins after a successful one). */
  reset(key: string): Promise<void>;
  /** Throws 429 if `key` is already over the limit, without counting. */
  check(key: string): Promise<void>;
}

/** A fixed-window limiter, in memory or shared across instances through Redis. */
export function createRateLimit(options: { name: string; points: number; durationSeconds: number; redis: Redis | null }): RateLimit {
  const common = { keyPrefix: `latchkey:rl:${options.name}`, points: options.points, duration: options.durationSeconds };
  const limiter: RateLimiterAbstract = options.redis
    ? new RateLimiterRedis({ ...common, storeClient: options.redis, useRedisPackage: false })
    : new RateLimiterMemory(common);
  return {
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
    async check(key) {
      const res = await limiter.get(key);
      if (res && res.consumedPoints >= options.points) throw errors.tooManyRequests(res.msBeforeNext / 1000);
    },
  };
}
