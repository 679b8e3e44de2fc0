/**
 * Presence changes written together: those the link hands on during one turn of the event loop
 * (and while a batch is being written) share one transaction, up to `max`. A reconnect storm
 * brings thousands of locks online within seconds; one transaction and commit each made their
 * presence the service's largest write load (docs/scaling.md, Fleet). The lock link's per-lock
 * queue keeps a lock's changes in order, so a batch holds at most one change per lock.
 */
type Change = { lockId: string; online: boolean };

interface Waiting extends Change {
  resolve(audited: boolean): void;
  reject(error: unknown): void;
}

export class PresenceBatch {
  private readonly waiting: Waiting[] = [];
  private draining = false;

  /** `write` records its changes in one transaction and answers the ids it audited. */
  constructor(private readonly write: (changes: Change[]) => Promise<Set<string>>, private readonly max = 200) {}

  /** Resolves once the change is recorded: true when it changed the stored presence (and was audited). */
  record(lockId: string, online: boolean): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ lockId, online, resolve, reject });
      if (this.draining) return;
      this.draining = true;
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.writeSome(this.waiting.splice(0, this.max));
    } finally {
      this.draining = false;
    }
  }

  private async writeSome(batch: Waiting[]): Promise<void> {
    try {
      const audited = await this.write(batch.map(({ lockId, online }) => ({ lockId, online })));
      for (const entry of batch) entry.resolve(audited.has(entry.lockId));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // One bad change must not lose the others: each again on its own.
      for (const entry of batch) await this.writeSome([entry]);
    }
  }
}
