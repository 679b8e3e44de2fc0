import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { RateLimitConfig } from '../config/config.js';
import type { RateLimit } from './rate-limit.js';
import { createRateLimit } from './rate-limiter.js';

/** Every HTTP rate limit of the service, built once by the composition root (ctx.limits). */
export interface RateLimits {
  loginFailuresPerAccount: RateLimit;
  loginFailuresPerAccountAll: RateLimit;
  authPerIp: RateLimit;
  requestsPerCaller: RateLimit;
  verificationPerUser: RateLimit;
  passwordResetsPerEmailAll: RateLimit;
  invitationsPerUser: RateLimit;
  executePerUser: RateLimit;
  executePerLock: RateLimit;
  /** Wrong device secrets per lock id at the external broker's authentication hook (src/lock-link/routes.ts). */
  brokerHookFailuresPerLock: RateLimit;
}

export interface RateLimitsInfrastructure {
  /** Null: counts kept in this process. */
  redis: Redis | null;
  /** The service's clock, Unix seconds (ctx.now). */
  now: () => number;
  logger: Logger;
}

/** The limits of `config`; the busy ones (every request, every execution) counted in batches when shared through Redis. */
export function createRateLimits(config: RateLimitConfig, { redis, now, logger }: RateLimitsInfrastructure): RateLimits {
  const nowMs = () => now() * 1000;
  const exact = (name: string, limit: { points: number; durationSeconds: number }) => createRateLimit({ name, ...limit, redis, now: nowMs, logger });
  const batched = (name: string, limit: { points: number; durationSeconds: number }) => createRateLimit({ name, ...limit, redis, now: nowMs, sharing: 'batched', logger });
  return {
    loginFailuresPerAccount: exact('login-fail', config.loginFailuresPerAccount),
    loginFailuresPerAccountAll: exact('login-fail-all', config.loginFailuresPerAccountAll),
    authPerIp: exact('auth-ip', config.authPerIp),
    requestsPerCaller: batched('caller', config.requestsPerCaller),
    verificationPerUser: exact('verify', config.verificationPerUser),
    passwordResetsPerEmailAll: exact('reset-all', config.passwordResetsPerEmailAll),
    invitationsPerUser: exact('invite', config.invitationsPerUser),
    executePerUser: batched('execute-user', config.executePerUser),
    executePerLock: batched('execute-lock', config.executePerLock),
    brokerHookFailuresPerLock: exact('broker-auth-fail', { points: 10, durationSeconds: 60 }),
  };
}
