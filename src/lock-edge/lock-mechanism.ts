import type { UnlockBetweenWindow } from '../access/types.js';
import type { LockState } from '../device-protocol/payloads.js';
import { isInsideUnlockWindow, msUntilNextMinute } from './unlock-window.js';

/** Why the bolt moved, for the log and the state report. */
export type ChangeCause = 'command' | 'auto_relock' | 'unlock_window' | 'door' | 'lockdown';

/**
 * The bolt and door of a simulated lock. The bolt is open while an unlock is running (until
 * `unlockUntil`) or while the unlock-between window is open; otherwise it is shut. It works
 * without any connection, as a real lock's firmware would: the relock and the window are
 * applied by timers here, and the new state is reported whenever the link is up.
 */
export class LockMechanism {
  private locked = true;
  private doorOpen = false;
  /** Unix seconds until which the last unlock holds the bolt open. */
  private unlockUntil = 0;
  private window: UnlockBetweenWindow | null = null;
  private relockTimer: NodeJS.Timeout | undefined;
  private windowTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly now: () => number,
    private readonly onChange: (state: LockState, cause: ChangeCause) => void,
  ) {
    this.scheduleWindowCheck();
  }

  get state(): LockState {
    return { locked: this.locked, doorOpen: this.doorOpen, ts: this.now() };
  }

  get windowOpen(): boolean {
    return isInsideUnlockWindow(this.window, this.now());
  }

  /** Opens the bolt for `seconds` (at least one); a later unlock replaces the earlier deadline. */
  unlockFor(seconds: number): void {
    this.unlockUntil = this.now() + Math.max(1, seconds);
    this.evaluate('command');
  }

  /** Shuts the bolt now. False (nothing done) while the unlock-between window holds it open. */
  lock(): boolean {
    if (this.windowOpen) return false;
    this.unlockUntil = 0;
    this.evaluate('command');
    return true;
  }

  /** A lockdown (device protocol 1.4): ends a running unlock and shuts the bolt, whatever the window (the lock has dropped it). */
  lockDown(): void {
    this.unlockUntil = 0;
    this.evaluate('lockdown');
  }

  setWindow(window: UnlockBetweenWindow | null): void {
    this.window = window;
    this.evaluate('unlock_window');
  }

  setDoor(open: boolean): boolean {
    if (this.doorOpen === open) return false;
    this.doorOpen = open;
    this.onChange(this.state, 'door');
    return true;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.relockTimer);
    clearTimeout(this.windowTimer);
  }

  private evaluate(cause: ChangeCause): void {
    if (this.stopped) return;
    const now = this.now();
    const held = now < this.unlockUntil;
    const shouldLock = !held && !isInsideUnlockWindow(this.window, now);
    clearTimeout(this.relockTimer);
    // A timer may fire a hair early; re-check then rather than trust it.
    if (held) this.relockTimer = setTimeout(() => this.evaluate('auto_relock'), Math.ceil((this.unlockUntil - now) * 1000));
    if (shouldLock === this.locked) return;
    this.locked = shouldLock;
    this.onChange(this.state, cause);
  }

  private scheduleWindowCheck(): void {
    if (this.stopped) return;
    this.windowTimer = setTimeout(() => {
      this.evaluate('unlock_window');
      this.scheduleWindowCheck();
    }, msUntilNextMinute(this.now()));
  }
}
