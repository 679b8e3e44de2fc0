import type { ServerResponse } from 'node:http';
import type { LockLogRow } from '../audit/queries.js';
import { presentLockEntryV2 } from '../audit/presenters.js';
import { hasSubject } from '../audit/types.js';
import { encodeCursor, type Cursor } from './cursor.js';
import type { AuditFeed, FeedSubscriber, LockSnapshot } from './feed.js';
import { withoutOthersEmails } from './privacy.js';

export interface EventStreamOptions {
  userId: string;
  /** Sorted, distinct. */
  lockIds: string[];
  cursor: Cursor;
  /** When the user's access to each lock ends (Unix seconds; null: never): the stream ends then. */
  accessEndsAt: Map<string, number | null>;
  now(): number;
  heartbeatMs: number;
  /** Bytes queued on the socket beyond which the client counts as too slow and is dropped. */
  maxBufferedBytes: number;
  /** The locks the user is an ADMIN of: only these show other members' email addresses. */
  adminOf: Set<string>;
  /** The user's access to the lock now, or undefined (asked after an entry that changed it). */
  access(lockId: string): Promise<StreamLockAccess | undefined>;
  /** Whether the token the stream was opened with is still good (asked when the account or its application changed). */
  stillSignedIn(): Promise<boolean>;
  /** The application that issued the stream's token, for third-party tokens; else null. */
  applicationId: string | null;
  onClose(stream: EventStream): void;
}

/** A member's access to one lock as the stream needs it. */
export interface StreamLockAccess {
  endsAt: number | null;
  admin: boolean;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** One SSE frame; `data` is JSON, so it holds no newline. */
export function frame(type: string, id: string, data: unknown): string {
  return `event: ${type}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * One open GET /device/events response. It takes entries from the feed after its own per-lock
 * position, writes them as SSE frames and moves its position on. A client that reads too slowly
 * is disconnected rather than buffered without bound: it reconnects with Last-Event-ID and loses
 * nothing. After an entry that names the caller as its subject (shared, revoked, promoted,
 * demoted: any may change their role or window) it stops taking entries of that lock until
 * membership is re-checked, and ends when the access is gone, when the window of any of its locks
 * ends, or when the token it was opened with no longer signs the caller in.
 */
export class EventStream implements FeedSubscriber {
  private closed = false;
  private readonly paused = new Set<string>();
  private readonly heartbeat: NodeJS.Timeout;
  private accessEnd: NodeJS.Timeout | undefined;

  constructor(
    private readonly raw: ServerResponse,
    private readonly feed: AuditFeed,
    private readonly options: EventStreamOptions,
  ) {
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), options.heartbeatMs);
    this.heartbeat.unref();
    raw.on('close', () => this.close());
    for (const lockId of options.lockIds) feed.add(lockId, this);
    this.scheduleAccessEnd();
  }

  /** Ends the stream when the first access window among its locks ends. */
  private scheduleAccessEnd(): void {
    clearTimeout(this.accessEnd);
    const ends = [...this.options.accessEndsAt.values()].filter((end): end is number => end !== null);
    if (ends.length === 0) return;
    // setTimeout holds at most ~24.8 days; a later end is scheduled again from there.
    const delayMs = Math.min(Math.max(0, (Math.min(...ends) - this.options.now()) * 1000), MAX_TIMER_MS);
    this.accessEnd = setTimeout(() => (this.options.now() >= Math.min(...ends) ? this.close() : this.scheduleAccessEnd()), delayMs);
    this.accessEnd.unref();
  }

  /**
   * Catches up from the stream's positions (replay), then stays live through the feed. A client
   * that hung up while the stream was being opened has already fired `close` (it will not again):
   * without this check its heartbeat and feed subscriptions would live forever.
   */
  start(): void {
    if (this.raw.destroyed) return this.close();
    for (const lockId of this.options.lockIds) this.feed.notify(lockId);
  }

  position(lockId: string): number | undefined {
    return this.closed || this.paused.has(lockId) ? undefined : this.options.cursor.get(lockId);
  }

  deliver(lockId: string, rows: readonly LockLogRow[], lock: LockSnapshot): void {
    for (const row of rows) {
      const at = this.position(lockId);
      if (at === undefined) return;
      if (row.seq <= at) continue;
      this.options.cursor.set(lockId, row.seq);
      // `rejected` beside the v2 fields: a refused unlock must not read as an unlock to a client that goes by the event name.
      const entry = { ...presentLockEntryV2(row), rejected: row.rejected === 1, deviceId: lockId, state: lock };
      const data = this.options.adminOf.has(lockId) ? entry : withoutOthersEmails(entry, this.options.userId);
      this.write(frame(row.type, encodeCursor(this.options.lockIds, this.options.cursor), data));
      if (hasSubject(row.type) && row.subject_user_id === this.options.userId) {
        this.recheck(lockId);
        return;
      }
    }
  }

  private recheck(lockId: string): void {
    this.paused.add(lockId);
    this.options.access(lockId).then(
      (access) => {
        if (!access) return this.close();
        this.options.accessEndsAt.set(lockId, access.endsAt);
        if (access.admin) this.options.adminOf.add(lockId);
        else this.options.adminOf.delete(lockId);
        this.scheduleAccessEnd();
        this.paused.delete(lockId);
        this.feed.notify(lockId);
      },
      () => this.close(),
    );
  }

  /** The stream's user (or their application) changed: end the stream unless its token still signs them in. */
  recheckSignIn(): void {
    if (this.closed) return;
    this.options.stillSignedIn().then(
      (signedIn) => void (signedIn || this.close()),
      () => this.close(),
    );
  }

  get userId(): string {
    return this.options.userId;
  }

  get applicationId(): string | null {
    return this.options.applicationId;
  }

  private write(text: string): void {
    if (this.closed) return;
    this.raw.write(text);
    if (this.raw.writableLength > this.options.maxBufferedBytes) this.close(true);
  }

  /** `abort` drops the connection with whatever is still queued (a client too slow to read it). */
  close(abort = false): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.accessEnd);
    for (const lockId of this.options.lockIds) this.feed.remove(lockId, this);
    if (abort) this.raw.destroy();
    else this.raw.end();
    this.options.onClose(this);
  }
}
