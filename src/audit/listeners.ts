import type { UnitOfWork } from '../db/transaction.js';
import type { AuditEntry } from './record.js';

/** Told of each entry inside the transaction that records it (what it writes commits or rolls back with the entry). */
export type AuditListener = (uow: UnitOfWork, entry: AuditEntry) => Promise<void>;

/**
 * The features that keep something of every audit entry in the entry's own transaction (the
 * webhooks' outbox, src/webhooks/outbox.ts). The audit imports none of them: the composition root
 * (src/context.ts) wires the listeners, as it does for account events.
 */
export class AuditListeners {
  private readonly listeners: AuditListener[] = [];

  on(listener: AuditListener): void {
    this.listeners.push(listener);
  }

  async recorded(uow: UnitOfWork, entry: AuditEntry): Promise<void> {
    for (const listener of this.listeners) await listener(uow, entry);
  }
}
