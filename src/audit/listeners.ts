import type { UnitOfWork } from '../db/transaction.js';
import type { AuditEntry } from './record.js';

/**
 * The webhooks' outbox as the audit sees it (src/webhooks/outbox.ts): whether an entry is of a
 * kind it keeps, how it writes its row in the entry's transaction (SQLite), and what it does once
 * its row is written (queues its worker's wake-up). On PostgreSQL the append function writes the
 * row itself, in the entry's statement (migration 0230, issue 33 point 3), with the same
 * conditional insert.
 */
export interface OutboxFollower {
  wants(entry: Pick<AuditEntry, 'type' | 'rejected'>): boolean;
  /** Writes the row (SQLite); true when written. */
  write(uow: UnitOfWork, entry: AuditEntry): Promise<boolean>;
  written(hooks: Pick<UnitOfWork, 'onCommit'>, entry: AuditEntry): void;
}

/**
 * What keeps something of every audit entry in the entry's own transaction: the webhooks' outbox.
 * The audit imports no feature: the composition root (src/context.ts) wires the follower, as it
 * does for account events. One kind of follower only, since PostgreSQL's append function writes
 * the row in SQL (a general listener would cost the append a round trip there again).
 */
export class AuditListeners {
  private outbox: OutboxFollower | null = null;

  /** The outbox follower (one at most). */
  followOutbox(follower: OutboxFollower): void {
    if (this.outbox !== null) throw new Error('the audit has an outbox follower already');
    this.outbox = follower;
  }

  /** Whether the outbox keeps an entry like this one (PostgreSQL's append function writes the row then). */
  outboxWanted(entry: Pick<AuditEntry, 'type' | 'rejected'>): boolean {
    return this.outbox?.wants(entry) ?? false;
  }

  /** The outbox row of `entry` is written (by PostgreSQL's append function). */
  outboxWritten(hooks: Pick<UnitOfWork, 'onCommit'>, entry: AuditEntry): void {
    this.outbox?.written(hooks, entry);
  }

  /** SQLite: the entry's outbox row written by the follower, if it keeps the entry. */
  async recorded(uow: UnitOfWork, entry: AuditEntry): Promise<void> {
    if (this.outbox?.wants(entry) && (await this.outbox.write(uow, entry))) this.outbox.written(uow, entry);
  }
}
