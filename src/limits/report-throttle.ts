import { LocalWindows } from './local-windows.js';

type Task = () => void;

export interface ReportThrottleOptions {
  /** Reports one lock may have recorded per window. */
  points: number;
  windowMs: number;
  /** Told once per lock and window when that lock's reports start being held back. */
  onThrottled: (lockId: string) => void;
  now?: () => number;
  /** Runs `task` after `ms` (a timer that does not keep the process alive). */
  schedule?: (task: Task, ms: number) => { cancel(): void };
}

const unrefTimer = (task: Task, ms: number) => {
  const timer = setTimeout(task, ms);
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
};

/**
 * How fast one lock's reports are recorded. A lock and its door change a few times a minute; a
 * lock reporting hundreds a second (faulty, or its secret in hostile hands) would fill its
 * permanent, hash-chained audit trail and every member's live stream. Past the limit a lock's
 * events are dropped, while its presence and state are coalesced rather than lost: the latest
 * of each is recorded when the lock's window ends, so what is stored still ends up right.
 */
export class ReportThrottle {
  private readonly windows: LocalWindows;
  private readonly told: LocalWindows;
  /** Per lock, per kind (presence, state): the latest report waiting for the lock's next window. */
  private readonly held = new Map<string, Map<string, { record: Task; flush: { cancel(): void } }>>();
  private readonly schedule: NonNullable<ReportThrottleOptions['schedule']>;

  constructor(private readonly options: ReportThrottleOptions) {
    this.windows = new LocalWindows(options.points, options.windowMs, options.now);
    this.told = new LocalWindows(1, options.windowMs, options.now);
    this.schedule = options.schedule ?? unrefTimer;
  }

  /** An event: recorded within the limit, else dropped. What is held of the lock goes first: it is older. */
  event(lockId: string, record: Task): void {
    if (this.admit(lockId) !== null) return;
    const waiting = this.held.get(lockId);
    this.held.delete(lockId);
    for (const { record: recordHeld, flush } of waiting?.values() ?? []) {
      flush.cancel();
      recordHeld();
    }
    record();
  }

  /** A report of which only the latest matters (`kind`: presence, state): recorded, or held until the lock's window ends. */
  latest(lockId: string, kind: string, record: Task): void {
    const waiting = this.held.get(lockId)?.get(kind);
    if (waiting) {
      waiting.record = record;
      return;
    }
    const waitMs = this.admit(lockId);
    if (waitMs === null) return record();
    const entry = {
      record,
      flush: this.schedule(() => {
        const ofLock = this.held.get(lockId);
        ofLock?.delete(kind);
        if (ofLock?.size === 0) this.held.delete(lockId);
        this.latest(lockId, kind, entry.record);
      }, waitMs),
    };
    if (!this.held.has(lockId)) this.held.set(lockId, new Map());
    this.held.get(lockId)!.set(kind, entry);
  }

  /** Drops whatever is held (shutdown: a lock re-announces its retained state on reconnect). */
  close(): void {
    for (const ofLock of this.held.values()) for (const { flush } of ofLock.values()) flush.cancel();
    this.held.clear();
  }

  /** Null when the lock may report now, else the milliseconds until its minute ends. */
  private admit(lockId: string): number | null {
    const waitMs = this.windows.consume(lockId, 1);
    if (waitMs !== null && this.told.consume(lockId, 1) === null) this.options.onThrottled(lockId);
    return waitMs;
  }
}
