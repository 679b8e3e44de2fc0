/**
 * Runs tasks one after another per key, different keys concurrently. The link calls its handlers
 * without waiting for them; a lock's reports must still reach the database in the order the
 * broker delivered them (a state report overtaking the previous one would audit a wrong change).
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run(key: string, task: () => Promise<unknown>): Promise<void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task).then(() => undefined);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Resolves once every queued task has settled (used on shutdown). */
  async drain(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}
