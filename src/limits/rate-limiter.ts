import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { createBatchedRateLimit } from './batched-rate-limit.js';
import type { RateLimit } from './rate-limit.js';
import { errors } from '../errors/catalogue.js';
import { LocalWindows } from './local-windows.js';

export interface RateLimitOptions {
  name: string;
  points: number;
  durationSeconds: number;
  redis: Redis | null;
  /**
   * With Redis: 'exact' asks Redis on every count (rare, security-relevant events: failed logins);
   * 'batched' counts here and adds to Redis in batches (every request; issue 17).
   */
  sharing?: 'exact' | 'batched';
  /** Told when Redis is unreachable and the counts fall back to this instance's own. */
  logger?: Logger;
  /**
   * The clock of this process's windows, in milliseconds (the service's ctx.now). Counts kept in
   * Redis by rate-limiter-flexible ('exact') expire by Redis's own clock.
   */
  now?: () => number;
}

/** A fixed-window limiter, in memory or shared across instances through Redis. */
export function createRateLimit(options: RateLimitOptions): RateLimit {
  if (!options.redis) return localRateLimit(options);
  if (options.sharing === 'batched' && options.logger) {
    return createBatchedRateLimit({ ...options, redis: options.redis, logger: options.logger, fallback: new LocalWindows(options.points, options.durationSeconds * 1000, options.now) });
  }
  return sharedRateLimit(options, options.redis);
}

function localRateLimit(options: RateLimitOptions): RateLimit {
  const windows = new LocalWindows(options.points, options.durationSeconds * 1000, options.now);
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
    // Redis down: count in this process at once rather than wait for the connection (issue 17).
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ points: options.points, duration: options.durationSeconds }),
  });
  let warned = false;
  const warnWhenAlone = () => {
    const alone = redis.status !== 'ready';
    if (alone && !warned) options.logger?.warn({ limit: options.name }, 'Redis unreachable: rate limits counted by this instance alone until it is back');
    warned = alone;
  };
  return {
    consumeHere: () => false,
    async consume(key, points = 1) {
      warnWhenAlone();
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

