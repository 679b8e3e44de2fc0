import { ACCOUNT_CHANGED } from '../accounts/live-sessions.js';
import { APPLICATIONS_CHANGED } from '../applications/platform.js';
import type { EventBus } from '../bus/event-bus.js';
import type { EventStream } from './stream.js';

const idOf = (message: unknown, key: 'userId' | 'applicationId'): string | undefined => {
  const value = (message as Record<string, unknown> | null)?.[key];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The event streams open on this instance, by user. When an account changes (logout, password
 * change, deletion, a reused refresh token) or an application's credentials change, on any
 * instance (the bus carries both), the streams opened on their strength check their token again
 * and end when it no longer signs the caller in (issue 15 §3).
 */
export class OpenStreams {
  private readonly byUser = new Map<string, Set<EventStream>>();
  private readonly unsubscribe: Array<() => void>;

  constructor(bus: EventBus) {
    this.unsubscribe = [
      bus.subscribe(ACCOUNT_CHANGED, (message) => {
        const userId = idOf(message, 'userId');
        if (userId) for (const stream of [...(this.byUser.get(userId) ?? [])]) stream.recheckSignIn();
      }),
      // After the applications feature has dropped its caches for the same message (it subscribed first).
      bus.subscribe(APPLICATIONS_CHANGED, (message) => {
        const applicationId = idOf(message, 'applicationId');
        setImmediate(() => {
          for (const stream of this.all()) if (stream.applicationId !== null && (applicationId === undefined || stream.applicationId === applicationId)) stream.recheckSignIn();
        });
      }),
    ];
  }

  add(stream: EventStream): void {
    let set = this.byUser.get(stream.userId);
    if (!set) this.byUser.set(stream.userId, (set = new Set()));
    set.add(stream);
  }

  delete(stream: EventStream): void {
    const set = this.byUser.get(stream.userId);
    set?.delete(stream);
    if (set?.size === 0) this.byUser.delete(stream.userId);
  }

  /** How many streams `userId` holds open on this instance. */
  countOf(userId: string): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  all(): EventStream[] {
    return [...this.byUser.values()].flatMap((set) => [...set]);
  }

  /** Ends every stream (shutdown) and stops listening. */
  close(): void {
    for (const stream of this.all()) stream.close();
    for (const off of this.unsubscribe) off();
  }
}
