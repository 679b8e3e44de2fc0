import type { Logger } from 'pino';
import { AUDIT_CHANNEL } from '../audit/channel.js';
import { lockEntries, type LockLogRow } from '../audit/queries.js';
import type { EventBus } from '../bus/event-bus.js';
import type { Executor } from '../db/transaction.js';

/** What a stream shows of the lock next to each entry. */
export interface LockSnapshot {
  locked?: boolean;
  connected: boolean;
  /** Whether the lock says it enforces a lockdown (protocol 1.4); absent before it says. */
  lockedDown?: boolean;
}

/** One open stream as the feed sees it. */
export interface FeedSubscriber {
  /** The last sequence this subscriber has of `lockId`; undefined while it takes none (paused). */
  position(lockId: string): number | undefined;
  /** Entries of `lockId` newer than some subscriber's position, oldest first; take those after yours. */
  deliver(lockId: string, rows: readonly LockLogRow[], lock: LockSnapshot): void;
}

const PAGE = 500;

function entriesAfter(db: Executor, lockId: string, afterSeq: number, limit: number): Promise<LockLogRow[]> {
  return lockEntries(db, lockId)
    .where('a.seq', '>', afterSeq)
    .orderBy('a.seq')
    .limit(limit)
    .execute();
}

async function snapshot(db: Executor, lockId: string): Promise<LockSnapshot> {
  const row = await db.selectFrom('locks').select(['locked', 'connected', 'reported_lockdown']).where('id', '=', lockId).executeTakeFirst();
  if (!row) return { connected: false };
  return {
    ...(row.locked === null ? {} : { locked: row.locked === 1 }),
    connected: row.connected === 1,
    ...(row.reported_lockdown === null ? {} : { lockedDown: row.reported_lockdown !== '' }),
  };
}

/**
 * The audit entries of watched locks, read from the database and fanned out to every open
 * stream of this instance. A bus announcement only says "lock L has something new": the feed
 * then reads L's entries after the lowest position of L's subscribers (one query however many
 * streams watch L) and hands them to each; the announcement itself is never trusted for content,
 * so a lost or reordered announcement costs nothing but latency until the next one.
 */
export class AuditFeed {
  private readonly subscribers = new Map<string, Set<FeedSubscriber>>();
  private readonly pulling = new Map<string, { again: boolean }>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly db: Executor,
    bus: EventBus,
    private readonly logger: Logger,
  ) {
    this.unsubscribe = bus.subscribe(AUDIT_CHANNEL, (message) => {
      const lockId = (message as { lockId?: unknown } | null)?.lockId;
      if (typeof lockId === 'string') this.notify(lockId);
    });
  }

  add(lockId: string, subscriber: FeedSubscriber): void {
    let set = this.subscribers.get(lockId);
    if (!set) this.subscribers.set(lockId, (set = new Set()));
    set.add(subscriber);
  }

  remove(lockId: string, subscriber: FeedSubscriber): void {
    const set = this.subscribers.get(lockId);
    set?.delete(subscriber);
    if (set?.size === 0) this.subscribers.delete(lockId);
  }

  /** Something may be new for `lockId`: read and deliver it (coalesced while a read runs). */
  notify(lockId: string): void {
    if (!this.subscribers.has(lockId)) return;
    const running = this.pulling.get(lockId);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.pulling.set(lockId, state);
    this.pull(lockId, state).catch((err: unknown) => {
      this.pulling.delete(lockId);
      this.logger.error({ err, lockId }, 'reading audit entries for event streams failed');
    });
  }

  /** Ends by removing itself from `pulling` in the same tick as its last check, so no notification falls in between. */
  private async pull(lockId: string, state: { again: boolean }): Promise<void> {
    for (;;) {
      state.again = false;
      const active = [...(this.subscribers.get(lockId) ?? [])].filter((s) => s.position(lockId) !== undefined);
      if (active.length === 0) {
        this.pulling.delete(lockId);
        return;
      }
      const from = Math.min(...active.map((s) => s.position(lockId)!));
      const rows = await entriesAfter(this.db, lockId, from, PAGE);
      if (rows.length > 0) {
        const lock = await snapshot(this.db, lockId);
        for (const subscriber of active) subscriber.deliver(lockId, rows, lock);
      }
      if (rows.length < PAGE && !state.again) {
        this.pulling.delete(lockId);
        return;
      }
    }
  }

  close(): void {
    this.unsubscribe();
    this.subscribers.clear();
  }
}
