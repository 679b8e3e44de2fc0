import type { LockConfig } from '../device-protocol/payloads.js';
import { DEADLINE_PASSED } from '../lock-edge/command-check.js';
import type { Bolt, BoltState, LockLog, Outcome } from '../lock-edge/lock-endpoint.js';
import { LockMechanism } from '../lock-edge/lock-mechanism.js';
import type { SlotWriter } from './keypad-slots.js';
import { LateUnlockWatch } from './late-unlock.js';
import type { LockEvents } from './lock-events.js';

/** Unlock duration before any config arrives, seconds (as the simulator). */
const UNLOCK_SECONDS_WITHOUT_CONFIG = 5;

/**
 * What every real lock behind the bridge does the same way, whatever its stack: the config's
 * own rules (LockMechanism: the relock after an unlock's duration, the unlock-between window, a
 * lock refused inside it), carried out on the real bolt; never late (an abandoned command's late
 * arrival reversed, LateUnlockWatch); the health it reports. A stack's lock says how to move the
 * bolt (`move`, within a deadline; `moveBySchedule`, best effort), how to write its keypad's code
 * slots, and what it hears.
 */
export abstract class RealLock implements Bolt, SlotWriter {
  protected battery: number | null = null;
  protected jammed: boolean | null = null;
  protected tamper: boolean | null = null;
  protected events: LockEvents | undefined;
  protected readonly late: LateUnlockWatch;
  private readonly mechanism: LockMechanism;

  constructor(protected readonly now: () => number, protected readonly log: LockLog) {
    this.late = new LateUnlockWatch(now);
    // The mechanism decides when the config wants the bolt to move by itself; commands move it in `mutate` first.
    this.mechanism = new LockMechanism(now, (state, cause) => {
      if (cause === 'auto_relock' || cause === 'unlock_window') this.moveBySchedule(state.locked, cause);
    });
  }

  abstract get reachable(): boolean;
  /** Its own keypad's code slots (src/bridge/keypad-slots.ts): how many, and writing one. */
  abstract slotCount(): Promise<number>;
  abstract write(slot: number, content: { digits: string; enabled: boolean } | null): Promise<void>;
  abstract get state(): BoltState;
  /** Moves the bolt and waits until the lock says it is there, both only until `deadline`. */
  protected abstract move(locked: boolean, deadline: number): Promise<Outcome>;
  /** Moves the bolt for the config's rules (or to undo a late unlock), without a deadline. */
  protected abstract moveBySchedule(locked: boolean, cause: string): void;

  listen(events: LockEvents): void {
    this.events = events;
  }

  configure(config: LockConfig | null): void {
    this.mechanism.setWindow(config?.unlockBetween ?? null);
  }

  async mutate(operation: { locked: boolean; duration?: number }, deadline: number, config: LockConfig | null): Promise<Outcome> {
    if (operation.locked && this.mechanism.windowOpen) return { ok: false, error: 'unlock_window_active: the unlock-between window holds the lock open' };
    const moved = await this.move(operation.locked, deadline);
    if (!moved.ok) return moved;
    if (operation.locked) this.mechanism.lock();
    else this.mechanism.unlockFor(operation.duration ?? config?.unlockDuration ?? UNLOCK_SECONDS_WITHOUT_CONFIG);
    return moved;
  }

  stop(): void {
    this.mechanism.stop();
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
    this.moveBySchedule(true, 'late_unlock');
  }
}
