/**
 * Group commit by statement, for PostgreSQL (group-commit.ts does it by transaction for SQLite):
 * calls of one statement made while a batch of it is away are sent together as the next batch,
 * one statement and one commit for all of them; a call made while none is away waits for the end
 * of the event loop's turn, so that the calls of that turn go together. One batch is sent at a
 * time: writers that would queue for the same row lock in the database (the audit tree head)
 * queue here instead, where waiting costs nothing.
 *
 * A batch that fails with an error `separable` recognises (the database refused the statement,
 * which is atomic: nothing of it was written, and the cause may be one item's) is sent again one
 * call at a time, so each call gets its own outcome. Any other failure (the connection lost, when
 * the commit may have happened; an answer that does not fit) fails every call of the batch with
 * it, as a statement of each would have failed: sending again what may be committed would answer
 * the second attempt's outcome ("already used", "unchanged") for the first's work.
 *
 * A batch not answered within `answerWithinMs` fails its calls (its outcome unknown: the database
 * may still commit it) and the next batch goes, the late answer dropped: a connection that hangs
 * fails the calls of one batch instead of holding every later one. At most one such batch is left
 * outstanding: should the next time out too while it is, the batches wait for the first to end, so
 * that a stalled database does not take one pooled connection after another. `send` answers one
 * result per item, in the items' order.
 */
export interface StatementBatchOptions {
  /** Whether a failed batch wrote nothing and may be sent again item by item. */
  separable: (error: unknown) => boolean;
  /** Items per statement at most, so that one batch does not hold the tree head for long. */
  maxItems?: number;
  /** How long a batch may go unanswered before its calls fail. */
  answerWithinMs?: number;
}

export class StatementBatch<Item, Result> {
  private waiting: Array<{ item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }> = [];
  private busy = false;
  /** A batch whose calls failed unanswered and which the database has not ended yet. */
  private outstanding: Promise<unknown> | null = null;
  /** An earlier such batch, still not ended when another was left: the next batch waits for it. */
  private blocking: Promise<unknown> | null = null;
  private readonly maxItems: number;
  private readonly answerWithinMs: number;

  constructor(
    private readonly send: (items: Item[]) => Promise<Result[]>,
    private readonly options: StatementBatchOptions,
  ) {
    this.maxItems = options.maxItems ?? 32;
    this.answerWithinMs = options.answerWithinMs ?? 30_000;
  }

  run(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.busy) return;
      this.busy = true;
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        await this.earlierEnded();
        const batch = this.waiting.splice(0, this.maxItems);
        try {
          settle(batch, await this.sendChecked(batch.map((entry) => entry.item)));
        } catch (error) {
          if (batch.length === 1 || error instanceof UnknownOutcome || !this.options.separable(error)) for (const entry of batch) entry.reject(error);
          else {
            for (const entry of batch) {
              await this.earlierEnded();
              await this.sendChecked([entry.item]).then((results) => settle([entry], results), entry.reject);
            }
          }
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private async sendChecked(items: Item[]): Promise<Result[]> {
    let timer: NodeJS.Timeout | undefined;
    let late = false;
    const answered = this.send(items);
    const ended = answered.then(() => undefined, () => undefined);
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        late = true;
        reject(new UnknownOutcome(`statement batch: no answer from the database within ${this.answerWithinMs} ms`));
      }, this.answerWithinMs);
    });
    try {
      const results = await Promise.race([answered, deadline]);
      if (results.length !== items.length) throw new UnknownOutcome(`statement batch: ${items.length} items answered ${results.length} results`);
      return results;
    } finally {
      clearTimeout(timer);
      if (late) this.leaveOutstanding(ended);
    }
  }

  /** Waits for the earlier unanswered batch, if another was left while it was still away. */
  private async earlierEnded(): Promise<void> {
    const earlier = this.blocking;
    this.blocking = null;
    if (earlier !== null) await earlier;
  }

  /** Leaves an unanswered batch to end in the background; one left already is waited for before the next batch. */
  private leaveOutstanding(ended: Promise<unknown>): void {
    this.blocking = this.outstanding;
    const mine: Promise<unknown> = ended.finally(() => {
      if (this.outstanding === mine) this.outstanding = null;
    });
    this.outstanding = mine;
  }
}

/** The batch may have been committed (no answer in time, an answer that does not fit): never sent again. */
class UnknownOutcome extends Error {}

function settle<Result>(entries: ReadonlyArray<{ resolve: (result: Result) => void }>, results: readonly Result[]): void {
  entries.forEach((entry, index) => entry.resolve(results[index]!));
}
