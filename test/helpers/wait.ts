import type { RunningService } from '../../src/server.js';

/**
 * How tests wait: for a fact, never for a while. `eventually` polls for a condition; the "quiet"
 * waits below end when the service says its background work is done, so a test that proves
 * "nothing else happened" waits for what would have come first, not for a fixed time.
 *
 * The in-process bus needs no wait: it delivers within `publish`. With Redis, wait for the effect
 * on the receiving side (`eventually`), or for a later marker message.
 */

type NotYet = undefined | false;

/**
 * Polls `check` every `everyMs` until it answers something other than undefined or false and
 * resolves with that; fails after `withinMs`. Checks may be synchronous or not.
 */
export async function eventually<T>(check: () => T | NotYet | Promise<T | NotYet>, what = 'condition', withinMs = 5000, everyMs = 10): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** `promise`'s value, or `otherwise` when it has not settled within `withinMs` (e.g. "the stream is still open"). */
export function within<T, U>(promise: Promise<T>, withinMs: number, otherwise: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<U>((resolve) => (timer = setTimeout(() => resolve(otherwise), withinMs)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Once every lock report the service's link has taken is recorded. With the embedded broker (same
 * process, and the lock's client in the test's) that covers a lock's report once `await client.publishAsync(…, { qos: 1 })` resolves:
 * aedes routes a QoS 1 publish in the turn of the event loop that writes its PUBACK (setImmediate
 * after the write), before the lock can read that PUBACK. With an external broker, wait for the
 * report's effect or for a later report instead.
 */
export function lockReportsRecorded(t: { service: RunningService }): Promise<void> {
  return t.service.subscribers.lockReportsRecorded();
}

/**
 * Once no email is being composed or sent: every email the service has started is then in the
 * SMTP sink (the sink keeps a message before it answers the DATA command).
 */
export function mailSent(t: { service: RunningService }): Promise<void> {
  return t.service.ctx.mailer.idle();
}

/**
 * For a test that proves time passed (a bound such as "refused 100 ms later at most"), never for
 * "nothing else happened": resolves once `ms` have really passed by performance.now (a timer may
 * fire a little early by that clock).
 */
export async function timePassed(ms: number): Promise<void> {
  const from = performance.now();
  for (let left = ms; left > 0; left = ms - (performance.now() - from)) await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
}
