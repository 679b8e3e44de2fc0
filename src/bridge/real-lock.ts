import type { LockConfig } from '../device-protocol/payloads.js';
import { DEADLINE_PASSED } from '../lock-edge/command-check.js';
import type { Bolt, BoltState, LockLog, Outcome } from '../lock-edge/lock-endpoint.js';
import { LockMechanism } from '../lock-edge/lock-mechanism.js';
import type { SlotWriter } from './keypad-slots.js';
import { LateUnlockWatch } from './late-unlock.js';
import type { LockEvents } from './lock-events.js';

/** Unlock duration before any config arrives, seconds (as the simulator). */
const UNLOCK_SECONDS_WITHOUT_CONFIG = 5;
/** A failed move the config's rules ask for is tried again after 2 s, then twice as long each time, up to a minute. */
const SCHEDULE_RETRY_FIRST_MS = 2_000;
const SCHEDULE_RETRY_MAX_MS = 60_000;

/**
 * What every real lock behind the bridge does the same way, whatever its stack: the config's
 * own rules (LockMechanism: the relock after an unlock's duration, the unlock-between window, a
 * lock refused inside it), carried out on the real bolt; never late (an abandoned command's late
 * arrival reversed, LateUnlockWatch); the health it reports. A stack's lock says how to move the
 * bolt (`move`, within a deadline; `moveBySchedule`, one attempt, tried again here until it is
 * done or overtaken), how to write its keypad's code slots, and what it hears.
 */
export abstract class RealLock implements Bolt, SlotWriter {
  protected battery: number | null = null;
  protected jammed: boolean | null = null;
  protected tamper: boolean | null = null;
  protected events: LockEvents | undefined;
  protected readonly late: LateUnlockWatch;
  private readonly mechanism: LockMechanism;
  /** The move the config's rules last asked for: a retry of an older one, overtaken, is dropped. */
  private scheduled = 0;
  private retry: NodeJS.Timeout | undefined;
  /** The scheduled move not yet done (being tried or waiting to be tried again). */
  private pending: { locked: boolean; cause: string } | undefined;

  constructor(protected readonly now: () => number, protected readonly log: LockLog) {
    this.late = new LateUnlockWatch(now);
    // The mechanism decides when the config wants the bolt to move by itself; commands move it in `mutate` first.
    this.mechanism = new LockMechanism(now, (state, cause) => {
      if (cause === 'auto_relock' || cause === 'unlock_window') this.moveUntilDone(state.locked, cause);
    });
  }

  abstract get reachable(): boolean;
  /** Its own keypad's code slots (src/bridge/keypad-slots.ts): how many, and writing one. */
  abstract slotCount(): Promise<number>;
  abstract write(slot: number, content: { digits: string; enabled: boolean } | null): Promise<void>;
  abstract get state(): BoltState;
  /** Moves the bolt and waits until the lock says it is there, both only until `deadline`. */
  protected abstract move(locked: boolean, deadline: number): Promise<Outcome>;
  /** Moves the bolt for the config's rules (or to undo a late unlock), without a deadline: one attempt, rejected when it fails. */
  protected abstract moveBySchedule(locked: boolean, cause: string): Promise<void>;

  listen(events: LockEvents): void {
    this.events = events;
  }

  configure(config: LockConfig | null): void {
    this.mechanism.setWindow(config?.unlockBetween ?? null);
  }

  async mutate(operation: { locked: boolean; duration?: number }, deadline: number, config: LockConfig | null): Promise<Outcome> {
    if (operation.locked && this.mechanism.windowOpen) return { ok: false, error: 'unlock_window_active: the unlock-between window holds the lock open' };
    // A command moves the bolt from here: a scheduled move still being tried again is overtaken,
    // unless the command fails: then it is tried again (a lost relock must not stay lost).
    const overtaken = this.pending;
    this.overtakeScheduled();
    const moved = await this.move(operation.locked, deadline);
    if (!moved.ok) {
      if (overtaken !== undefined && this.pending === undefined && this.state.locked !== overtaken.locked) this.moveUntilDone(overtaken.locked, overtaken.cause);
      return moved;
    }
    if (operation.locked) this.mechanism.lock();
    else this.mechanism.unlockFor(operation.duration ?? config?.unlockDuration ?? UNLOCK_SECONDS_WITHOUT_CONFIG);
    return moved;
  }

  stop(): void {
    this.mechanism.stop();
    this.overtakeScheduled();
  }

  /** The state with the bolt and door as the stack tells them, and the health reported so far. */
  protected stateOf(locked: boolean, doorOpen: boolean | null): BoltState {
    return {
      locked,
      ts: this.now(),
      ...(doorOpen === null ? {} : { doorOpen }),
      ...(this.battery === null ? {} : { battery: this.battery }),
      ...(this.jammed === null ? {} : { jammed: this.jammed }),
      ...(this.tamper === null ? {} : { tamper: this.tamper }),
    };
  }

  /** A command given up at its deadline: watched for arriving late. */
  protected abandon(locked: boolean): Outcome {
    this.late.abandoned(locked);
    this.log('command_abandoned', { locked });
    return { ok: false, error: DEADLINE_PASSED };
  }

  /** The lock reported its bolt: an abandoned unlock that arrived after all is undone at once. */
  protected boltReported(locked: boolean): void {
    if (!this.late.arrived(locked)) return;
    this.log('late_unlock_reversed');
    this.moveUntilDone(true, 'late_unlock');
  }

  /**
   * A move the config's rules (or a late unlock's undoing) ask for, tried until the bolt is there:
   * a relock lost on the radio (Z-Wave JS declares the node dead on one unacknowledged frame and
   * drops what it had queued) must not leave the door unlocked. Given up only when a command or a
   * later rule moves the bolt, or the lock reports it where it was asked to be.
   */
  private moveUntilDone(locked: boolean, cause: string): void {
    const move = this.overtakeScheduled();
    this.pending = { locked, cause };
    const done = () => {
      if (move === this.scheduled) this.pending = undefined;
    };
    const attempt = (retryMs: number): void => {
      this.moveBySchedule(locked, cause).then(done, (err: unknown) => {
        if (move !== this.scheduled) return;
        const message = err instanceof Error ? err.message : String(err);
        if (this.state.locked === locked) {
          done();
          return this.log('schedule_failed', { locked, cause, message, retry: false });
        }
        this.log('schedule_failed', { locked, cause, message, retryInMs: retryMs });
        this.retry = setTimeout(() => {
          if (move !== this.scheduled) return;
          // The lock reported the bolt there meanwhile (by hand, by its keypad): nothing to do.
          if (this.state.locked === locked) return done();
          attempt(Math.min(retryMs * 2, SCHEDULE_RETRY_MAX_MS));
        }, retryMs);
        this.retry.unref();
      });
    };
    attempt(SCHEDULE_RETRY_FIRST_MS);
  }

  /** Drops the scheduled move being tried again, if any; answers the number of the next one. */
  private overtakeScheduled(): number {
    clearTimeout(this.retry);
    this.retry = undefined;
    this.pending = undefined;
    return ++this.scheduled;
  }
}
