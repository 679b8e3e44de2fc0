/** How long after an abandoned unlock a bolt that opens is taken for it arriving late, seconds. */
export const LATE_WATCH_SECONDS = 60;

/**
 * Never late, the last line: a lock's stack may still deliver a command the bridge abandoned at
 * its deadline (Z-Wave JS retries; matter.js queues for a lock that is away). A bolt that opens
 * within LATE_WATCH_SECONDS of an abandoned unlock is that unlock arriving late, and the lock is
 * locked again at once; a person at the door (a keypad or manual operation the lock reports)
 * ends the watch.
 */
export class LateUnlockWatch {
  private until: number | null = null;

  constructor(private readonly now: () => number) {}

  /** A command was abandoned at its deadline; only an unlock is watched for. */
  abandoned(locked: boolean): void {
    if (!locked) this.until = this.now() + LATE_WATCH_SECONDS;
  }

  personAtTheDoor(): void {
    this.until = null;
  }

  /** The bolt was reported; true (once) when it opened while an abandoned unlock was watched for. */
  arrived(locked: boolean): boolean {
    if (this.until === null || locked) return false;
    const late = this.now() < this.until;
    this.until = null;
    return late;
  }
}
