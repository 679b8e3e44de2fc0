import type { Logger } from 'pino';
import type { EventBus } from '../bus/event-bus.js';
import type { Executor } from '../db/transaction.js';
import { AuditFeed } from './feed.js';
import { OpenStreams } from './open-streams.js';

/**
 * The long-lived side of GET /device/events: the audit feed every open stream reads from and the
 * streams open on this instance. Built once by the composition root (src/context.ts) and handed
 * to the events routes; the HTTP server ends the streams before it closes (they would hold it
 * open), the root stops listening to the bus.
 */
export class LiveEvents {
  readonly feed: AuditFeed;
  readonly streams: OpenStreams;
  private closed = false;

  constructor(deps: { db: Executor; bus: EventBus; logger: Logger }) {
    this.feed = new AuditFeed(deps.db, deps.bus, deps.logger);
    this.streams = new OpenStreams(deps.bus);
    // The bus lost: streams here would miss other instances' events; they end, and clients resume
    // from their Last-Event-ID once it is back (the feed replays from the database).
    deps.bus.onConnectionChange((connected) => {
      if (!connected && !this.closed) this.endStreams();
    });
  }

  /** Ends every open stream (they resume elsewhere, or later, with Last-Event-ID). */
  endStreams(): void {
    for (const stream of this.streams.all()) stream.close();
  }

  /** Ends every stream and stops listening to the bus; once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.streams.close();
    this.feed.close();
  }
}
