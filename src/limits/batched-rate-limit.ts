import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { errors } from '../errors/catalogue.js';
import type { LocalWindows } from './local-windows.js';
import type { RateLimit } from './rate-limit.js';

/** How long counts wait here before one pipelined call adds them to Redis (the over-admission bound). */
export const BATCH_FLUSH_MS = 25;

/** The Redis key holding every instance's count of `key` in the window that starts at `start` (ms). */
export const sharedWindowKey = (limitName: string, key: string, start: number): string => `latchkey:rlb:${limitName}:${key}:${start}`;

interface SharedWindow {
  /** Start of the fixed window (ms), the same on every instance: windows are aligned to the clock. */
  start: number;
  /** Every instance's count as Redis last answered it (ours included). */
  shared: number;
  /** Counted here, on its way to Redis. */
  sending: number;
  /** Counted here since the last flush. */
  pending: number;
}

export interface BatchedRateLimitOptions {
  name: string;
  points: number;
  durationSeconds: number;
  redis: Redis;
  logger: Logger;
  /** Counts while Redis is unreachable: this instance's own (a warning says so). */
  fallback: LocalWindows;
  /** The clock windows are aligned to, in milliseconds (the service's ctx.now). */
  now?: () => number;
}

/**
 * A limit counted in this process and added to Redis in batches: a request costs no round trip
 * (issue 17). Each instance admits against every instance's count as last read plus its own
 * since, so the limit can be overshot by what the instances admit within one flush interval:
 * fine for the high-volume limits (requests per caller, executions), not for login failures.
 */
export function createBatchedRateLimit(options: BatchedRateLimitOptions): RateLimit {
  const durationMs = options.durationSeconds * 1000;
  const clock = options.now ?? Date.now;
  const windows = new Map<string, SharedWindow>();
  const dirty = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let sweptAt = clock();
  let degraded = false;
  const redisKey = (key: string, start: number) => sharedWindowKey(options.name, key, start);

  const degrade = (err?: unknown) => {
    if (degraded) return;
    degraded = true;
    options.logger.warn({ limit: options.name, err }, 'Redis unreachable: rate limits counted by this instance alone until it is back');
  };

  const flush = async () => {
    timer = undefined;
    const now = clock();
    if (now - sweptAt > durationMs) {
      for (const [key, window] of windows) if (window.start + durationMs <= now && window.pending === 0 && window.sending === 0) windows.delete(key);
      sweptAt = now;
    }
    const batch: Array<[string, SharedWindow, number]> = [];
    for (const key of dirty) {
      const window = windows.get(key);
      if (!window || window.pending === 0) continue;
      batch.push([key, window, window.pending]);
      window.sending += window.pending;
      window.pending = 0;
    }
    dirty.clear();
    if (batch.length === 0) return;
    const pipeline = options.redis.pipeline();
    for (const [key, window, count] of batch) pipeline.incrby(redisKey(key, window.start), count).pexpire(redisKey(key, window.start), durationMs + 1000);
    try {
      const results = await pipeline.exec();
      batch.forEach(([, window, count], index) => {
        window.sending -= count;
        const [err, total] = results?.[index * 2] ?? [new Error('no reply'), null];
        if (!err && typeof total === 'number') window.shared = Math.max(window.shared, total);
      });
      if (degraded) {
        degraded = false;
        options.logger.info({ limit: options.name }, 'Redis reachable again: rate limits shared across instances');
      }
    } catch (err) {
      // Not sent: the counts stay ours (the windows keep them) and Redis misses them.
      for (const [, window, count] of batch) {
        window.sending -= count;
        window.shared += count;
      }
      degrade(err);
    }
  };

  const shared = () => options.redis.status === 'ready';

  const consumeHere = (key: string, points = 1): true => {
    if (!shared()) {
      degrade();
      const msBeforeNext = options.fallback.consume(key, points);
      if (msBeforeNext !== null) throw errors.tooManyRequests(msBeforeNext / 1000);
      return true;
    }
    const now = clock();
    const start = now - (now % durationMs);
    let window = windows.get(key);
    if (window === undefined || window.start !== start) {
      window = { start, shared: 0, sending: 0, pending: 0 };
      windows.set(key, window);
    }
    if (window.shared + window.sending + window.pending + points > options.points) throw errors.tooManyRequests((start + durationMs - now) / 1000);
    window.pending += points;
    dirty.add(key);
    timer ??= setTimeout(() => void flush(), BATCH_FLUSH_MS).unref();
    return true;
  };

  return {
    consumeHere,
    async consume(key, points) {
      consumeHere(key, points);
    },
    async refund(key, points = 1) {
      options.fallback.refund(key, points);
      const window = windows.get(key);
      if (window) window.pending = Math.max(0, window.pending - points);
    },
    async reset(key) {
      windows.delete(key);
      options.fallback.forget(key);
      const now = clock();
      if (shared()) await options.redis.del(redisKey(key, now - (now % durationMs)));
    },
    async check(key) {
      if (!shared()) {
        const msBeforeNext = options.fallback.exhausted(key);
        if (msBeforeNext !== null) throw errors.tooManyRequests(msBeforeNext / 1000);
        return;
      }
      const now = clock();
      const window = windows.get(key);
      if (window && window.start === now - (now % durationMs) && window.shared + window.sending + window.pending >= options.points) {
        throw errors.tooManyRequests((window.start + durationMs - now) / 1000);
      }
    },
  };
}
