import type { EventBus } from '../bus/event-bus.js';
import { ACCOUNT_CHANGED, type LiveSessions } from './live-sessions.js';

/**
 * Keeps this instance's cache of live sessions true to every instance's changes: a change
 * announced on the bus by another instance (logout, revocation, a changed user) drops the user
 * here, and while the bus is disconnected the cache is bypassed (every request reads the
 * database) since announcements may be missed. Returns the unsubscription.
 */
export function startSessionRevocation(ctx: { bus: EventBus; liveSessions: LiveSessions | null }): () => void {
  const cache = ctx.liveSessions;
  if (!cache) return () => undefined;
  cache.trust(ctx.bus.status().connected);
  let stopped = false;
  ctx.bus.onConnectionChange((connected) => {
    if (!stopped) cache.trust(connected);
  });
  const unsubscribe = ctx.bus.subscribe(ACCOUNT_CHANGED, (message) => {
    const userId = (message as { userId?: unknown } | null)?.userId;
    if (typeof userId === 'string') cache.forget(userId);
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}
