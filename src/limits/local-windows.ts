interface Window {
  count: number;
  endsAt: number;
}

/**
 * Fixed-window counts kept in this process. Every authenticated request passes here, so counting
 * is synchronous (rate-limiter-flexible answers through a promise and arms a timer per key);
 * ended windows are swept once per window length, so memory follows the keys seen lately.
 */
export class LocalWindows {
  private readonly windows = new Map<string, Window>();
  private sweepAt: number;

  constructor(
    private readonly points: number,
    private readonly durationMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sweepAt = now() + durationMs;
  }

  /** Counts `points` for `key`: null while within the limit, else the milliseconds until its window ends. */
  consume(key: string, points: number): number | null {
    const now = this.now();
    if (now >= this.sweepAt) this.sweep(now);
    let window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { count: 0, endsAt: now + this.durationMs };
      this.windows.set(key, window);
    }
    window.count += points;
    return window.count > this.points ? window.endsAt - now : null;
  }

  /** Null unless `key` has used all its points in its current window, else the milliseconds until it ends. */
  exhausted(key: string): number | null {
    const now = this.now();
    const window = this.windows.get(key);
    return window !== undefined && window.endsAt > now && window.count >= this.points ? window.endsAt - now : null;
  }

  /** What `key` has counted in its current window. */
  count(key: string): number {
    const window = this.windows.get(key);
    return window !== undefined && window.endsAt > this.now() ? window.count : 0;
  }

  /** Gives back `points` counted for `key` in its current window (an attempt that turned out not to be abuse). */
  refund(key: string, points: number): void {
    const window = this.windows.get(key);
    if (window !== undefined) window.count = Math.max(0, window.count - points);
  }

  forget(key: string): void {
    this.windows.delete(key);
  }

  /** How many keys are held (for tests of the sweep). */
  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    this.sweepAt = now + this.durationMs;
  }
}
