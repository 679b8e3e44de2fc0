/** A task refused because its key already has as many tasks waiting as the queue allows. */
export class QueueFullError extends Error {
  constructor(readonly key: string) {
    super(`too many reports waiting for ${key}`);
  }
}

/**
 * Runs tasks one after another per key, different keys concurrently. The link calls its handlers
 * without waiting for them; a lock's reports must still reach the database in the order the
 * broker delivered them (a state report overtaking the previous one would audit a wrong change).
 *
 * A key holds at most `maxPerKey` unfinished tasks: a lock that publishes faster than its reports
 * can be written (a faulty or hostile device) has the excess refused, rather than growing the
 * service's memory without bound.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, { promise: Promise<void>; pending: number }>();

  constructor(private readonly maxPerKey = 1000) {}

  run(key: string, task: () => Promise<unknown>): Promise<void> {
    const queued = this.tails.get(key);
    if (queued && queued.pending >= this.maxPerKey) return Promise.reject(new QueueFullError(key));
    const next = (queued?.promise ?? Promise.resolve()).then(task, task).then(() => undefined);
    const entry = { promise: next.catch(() => undefined), pending: (queued?.pending ?? 0) + 1 };
    this.tails.set(key, entry);
    void entry.promise.then(() => {
      const current = this.tails.get(key)!;
      current.pending -= 1;
      if (current === entry) this.tails.delete(key);
    });
    return next;
  }

  /** Resolves once every queued task has settled, those queued meanwhile included (shutdown; "all recorded"). */
  async drain(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()].map((entry) => entry.promise));
  }
}
