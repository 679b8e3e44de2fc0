import { ConfigError } from './config.js';

/** Webhook deliveries (issue 32, docs/webhooks.md). */
export interface WebhookConfig {
  /** Deliver to loopback, private, link-local and metadata addresses too (WEBHOOK_ALLOW_PRIVATE_ADDRESSES): tests and closed networks only. */
  allowPrivateAddresses: boolean;
  /** Milliseconds an attempt may take, connection to the end of the answer (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Bytes of a receiver's answer read at most; the rest is not read (WEBHOOK_RESPONSE_MAX_BYTES). */
  responseMaxBytes: number;
  /** The first retry's delay; each next one doubles, up to `retryMaxMs` (WEBHOOK_RETRY_BASE_MS, WEBHOOK_RETRY_MAX_MS). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Seconds a delivery is retried for before it is given up (WEBHOOK_RETRY_WINDOW_S). */
  retryWindowSeconds: number;
  /** An endpoint is disabled once this many attempts in a row failed over at least `disableAfterSeconds` (WEBHOOK_DISABLE_AFTER_FAILURES, WEBHOOK_DISABLE_AFTER_S). */
  disableAfterFailures: number;
  disableAfterSeconds: number;
  /** Seconds the secret before a rotation keeps signing beside the new one (WEBHOOK_SECRET_OVERLAP_S). */
  secretOverlapSeconds: number;
  /** Attempts one instance makes at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Milliseconds between looks for due retries and other instances' work when nothing wakes the worker, doubling while they find nothing, up to 32× (WEBHOOK_POLL_MS). */
  pollMs: number;
}

type Env = Record<string, string | undefined>;
type Integer = (env: Env, name: string, fallback: number, min: number, max: number) => number;

export function webhookConfig(env: Env, integer: Integer): WebhookConfig {
  const allow = env.WEBHOOK_ALLOW_PRIVATE_ADDRESSES || 'false';
  if (allow !== 'true' && allow !== 'false') throw new ConfigError('WEBHOOK_ALLOW_PRIVATE_ADDRESSES must be true or false');
  const retryBaseMs = integer(env, 'WEBHOOK_RETRY_BASE_MS', 5000, 1, 3_600_000);
  const retryMaxMs = integer(env, 'WEBHOOK_RETRY_MAX_MS', 3_600_000, 1, 24 * 3_600_000);
  if (retryMaxMs < retryBaseMs) throw new ConfigError('WEBHOOK_RETRY_MAX_MS must be at least WEBHOOK_RETRY_BASE_MS');
  return {
    allowPrivateAddresses: allow === 'true',
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 10, 120_000),
    responseMaxBytes: integer(env, 'WEBHOOK_RESPONSE_MAX_BYTES', 65_536, 0, 10_485_760),
    retryBaseMs,
    retryMaxMs,
    retryWindowSeconds: integer(env, 'WEBHOOK_RETRY_WINDOW_S', 86_400, 1, 30 * 86_400),
    disableAfterFailures: integer(env, 'WEBHOOK_DISABLE_AFTER_FAILURES', 20, 1, 1_000_000),
    disableAfterSeconds: integer(env, 'WEBHOOK_DISABLE_AFTER_S', 86_400, 0, 30 * 86_400),
    secretOverlapSeconds: integer(env, 'WEBHOOK_SECRET_OVERLAP_S', 86_400, 0, 30 * 86_400),
    concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 4, 1, 64),
    pollMs: integer(env, 'WEBHOOK_POLL_MS', 1000, 10, 600_000),
  };
}
