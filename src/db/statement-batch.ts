/**
 * Group commit by statement, for PostgreSQL (group-commit.ts does it by transaction for SQLite):
 * calls of one statement made while a batch of it is away are sent together as the next batch,
 * one statement and one commit for all of them; a call made while none is away waits for the end
 * of the event loop's turn, so that the calls of that turn go together. One batch is away at a
 * time: writers that would queue for the same row lock in the database (the audit tree head)
 * queue here instead, where waiting costs nothing.
 *
 * A batch that fails is sent again one call at a time, so each call gets its own outcome (the
 * statement is atomic: the failed batch wrote nothing). `send` answers one result per item, in
 * the items' order.
 */
export class StatementBatch<Item, Result> {
  private waiting: Array<{ item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void }> = [];
  private busy = false;

  constructor(
    private readonly send: (items: Item[]) => Promise<Result[]>,
    /** Items per statement at most, so that one batch does not hold the tree head for long. */
    private readonly maxItems = 32,
  ) {}

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
        const batch = this.waiting.splice(0, this.maxItems);
        try {
          settle(batch, await this.sendChecked(batch.map((entry) => entry.item)));
        } catch (error) {
          if (batch.length === 1) batch[0]!.reject(error);
          else for (const entry of batch) await this.sendChecked([entry.item]).then((results) => settle([entry], results), entry.reject);
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private async sendChecked(items: Item[]): Promise<Result[]> {
    const results = await this.send(items);
    if (results.length !== items.length) throw new Error(`statement batch: ${items.length} items answered ${results.length} results`);
    return results;
  }
}

function settle<Result>(entries: ReadonlyArray<{ resolve: (result: Result) => void }>, results: readonly Result[]): void {
  entries.forEach((entry, index) => entry.resolve(results[index]!));
}
