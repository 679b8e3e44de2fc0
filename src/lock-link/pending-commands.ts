import type { AppError } from '../errors/catalogue.js';

interface Pending<T> {
  lockId: string;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Commands waiting for their lock's reply, by command id. Each either settles with the reply,
 * times out, or is rejected when the link closes; whichever comes first wins and removes it, so
 * a reply that arrives later finds nothing and is dropped.
 */
export class PendingCommands<T> {
  private readonly pending = new Map<string, Pending<T>>();
  /** Ids that timed out here lately (a late reply to one is still this instance's command). */
  private readonly timedOut = new Map<string, number>();

  /** Starts waiting for `id`; rejects with `onTimeout()` after `timeoutMs`. */
  wait(id: string, lockId: string, timeoutMs: number, onTimeout: () => AppError): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.rememberTimeout(id);
        reject(onTimeout());
      }, timeoutMs);
      this.pending.set(id, { lockId, resolve, reject, timer });
    });
  }

  /**
   * Settles `id` when it is pending for `lockId` (a lock can only answer its own commands).
   * False when nobody waits: late, duplicate, foreign or unknown.
   */
  settle(id: string, lockId: string, outcome: { value: T } | { error: Error }): boolean {
    const entry = this.pending.get(id);
    if (entry === undefined || entry.lockId !== lockId) return false;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    if ('error' in outcome) entry.reject(outcome.error);
    else entry.resolve(outcome.value);
    return true;
  }

  /** Whether `id` timed out on this instance within the last minute. */
  timedOutHere(id: string): boolean {
    const at = this.timedOut.get(id);
    return at !== undefined && Date.now() - at < 60_000;
  }

  private rememberTimeout(id: string): void {
    if (this.timedOut.size >= 10_000) {
      for (const [old, at] of this.timedOut) if (Date.now() - at >= 60_000 || this.timedOut.size >= 10_000) this.timedOut.delete(old);
    }
    this.timedOut.set(id, Date.now());
  }

  rejectAll(error: () => Error): void {
    this.rejectWhere(() => true, error);
  }

  /** Rejects every command waiting for `lockId`'s reply. */
  rejectLock(lockId: string, error: () => Error): void {
    this.rejectWhere((entry) => entry.lockId === lockId, error);
  }

  private rejectWhere(which: (entry: Pending<T>) => boolean, error: () => Error): void {
    for (const [id, entry] of this.pending) {
      if (!which(entry)) continue;
      this.pending.delete(id);
      clearTimeout(entry.timer);
      entry.reject(error());
    }
  }
}
