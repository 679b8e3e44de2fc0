import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientCommandOptions } from '@project-chip/matter.js/cluster';
import type { PairedNode } from '@project-chip/matter.js/device';
import { DEADLINE_PASSED } from '../../lock-edge/command-check.js';
import { LOCKOUT_SECONDS, MAX_WRONG_ENTRIES } from '../../lock-edge/keypad.js';
import type { BoltState, LockLog, Outcome } from '../../lock-edge/lock-endpoint.js';
import type { SlotWriter } from '../keypad-slots.js';
import { RealLock } from '../real-lock.js';
import { PIN_WRITE_TIMED_MS, readPinKeypad, writePinUser, type PinKeypad, type PinUserClient } from './pin-users.js';

/**
 * One Matter door lock (a node paired to the bridge's controller) as a Latchkey lock's bolt: the
 * Door Lock cluster's lockState and doorState, the Power Source cluster's battery, its
 * LockOperation, LockOperationError and DoorLockAlarm events (each taken once: matter.js delivers
 * them again after a restart, so they are told apart by event number), lock and unlock as timed
 * invokes; keypad codes as users with a PIN credential (a SlotWriter, src/bridge/matter/pin-users.ts),
 * their use told by LockOperation's user index, wrong PINs by LockOperationError and the lock's
 * own lockout by its WrongCodeEntryLimit alarm. matter.js is handed in by
 * src/bridge/matter/network.ts, which alone loads it.
 *
 * Never late: the invoke is a timed request whose window ends at the command's deadline, so a
 * lock that gets it later refuses it; matter.js queues commands for a lock that is away, so a bolt
 * that opens within a minute of an abandoned unlock is locked again (LateUnlockWatch).
 */

// Door Lock cluster values (Matter 1.3 §5.2).
const LOCKED = 1;
const UNLOCKED = 2;
const NOT_FULLY_LOCKED = 0;
const DOOR_OPEN = 0;
const DOOR_CLOSED = 1;
const DOOR_JAMMED = 2;
const DOOR_FORCED_OPEN = 3;
const ALARM_JAMMED = 0;
const ALARM_WRONG_CODE_LIMIT = 4;
const ALARM_FORCED_OPEN = 6;
const ERROR_DISABLED_USER = 2;
const SOURCES: Record<number, string> = { 0: 'unspecified', 1: 'manual', 2: 'proprietary_remote', 3: 'keypad', 4: 'auto', 5: 'button', 6: 'schedule', 7: 'remote', 8: 'rfid', 9: 'biometric', 10: 'aliro' };
/** matter.js's NodeStates.Connected (the others: disconnected, reconnecting, waiting for discovery). */
const NODE_CONNECTED = 0;
const NODE_STATES: Record<number, string> = { 0: 'connected', 1: 'disconnected', 2: 'reconnecting', 3: 'waiting_for_discovery' };
/** How often a command's bolt is read while it has not arrived, milliseconds. */
const POLL_MS = 100;
/**
 * A subscription that was never established while the lock answers reads is asked for again after
 * this, doubling up to the maximum (matter.js's own retries back off to an hour), seconds.
 */
const SUBSCRIBE_AGAIN_FIRST_SECONDS = 60;
const SUBSCRIBE_AGAIN_MAX_SECONDS = 600;

export const MATTER_CAPABILITIES = ['keypad', 'doorSensor', 'battery', 'jamDetection'];

/** What the lock must offer of matter.js's cluster client (the subset the bridge uses). */
interface DoorLockClient extends PinUserClient {
  lockDoor(request: object, options: ClientCommandOptions): Promise<unknown>;
  unlockDoor(request: object, options: ClientCommandOptions): Promise<unknown>;
  getLockStateAttribute(requestFromRemote?: boolean): Promise<number | null | undefined>;
  /** Only with the door position sensor feature. */
  getDoorStateAttribute?(requestFromRemote?: boolean): Promise<number | null | undefined>;
}

export interface MatterApi {
  doorLock(node: PairedNode): DoorLockClient | undefined;
  /** The Power Source cluster's batPercentRemaining (half per cent), when the lock has one. */
  batteryOf(node: PairedNode): Promise<number | null | undefined>;
  /** True when matter.js says the node is connected: its subscription is established and alive. */
  isConnected(node: PairedNode): boolean;
  /** Ends the node's subscription and subscribes again, reading everything first (matter.js's reconnect). */
  subscribeAgain(node: PairedNode): void;
  /** A timed invoke's options: the lock refuses the command when it arrives more than `ms` after its timed request. */
  timed(ms: number): ClientCommandOptions;
}

export class MatterLock extends RealLock implements SlotWriter {
  private node: PairedNode | null = null;
  private api: MatterApi | null = null;
  private lockState: number | null = null;
  private doorState: number | null = null;
  private answering = false;
  /** The subscription the lock's reports come by is live: matter.js's node is connected, and no renewal is on its way. */
  private subscribed = false;
  /** When the current subscription was asked for (attached, or subscribed again), the bridge's seconds. */
  private subscribeAskedAt = 0;
  /** The current subscription was live at least once (so not being live now means it was lost). */
  private subscribedSinceAsked = false;
  /** The bridge asked for a new subscription, which has not reported yet (matter.js may say connected meanwhile, of the old one). */
  private resubscribing = false;
  /** The lock left a read unanswered since its subscription last reported: it may have restarted, and its subscription with it. */
  private missedRead = false;
  private subscribeAgainSeconds = SUBSCRIBE_AGAIN_FIRST_SECONDS;
  /** The highest event number taken, so events delivered again are not taken twice. */
  private lastEventNumber = -1n;
  /** What its keypad takes, once read from the lock (null before; `none` for a lock without PIN users: it has no keypad). */
  private pinKeypad: PinKeypad | 'none' | null = null;
  private keypadReading: Promise<void> | undefined;
  private keypadUnread: string | undefined;

  constructor(readonly lockId: string, now: () => number, log: LockLog) {
    super(now, log);
  }

  get reachable(): boolean {
    return this.node !== null && this.subscribed && this.answering && this.lockState !== null;
  }

  get state(): BoltState {
    const door = this.doorState === DOOR_OPEN || this.doorState === DOOR_FORCED_OPEN ? true : this.doorState === DOOR_CLOSED ? false : null;
    return this.stateOf(this.lockState === LOCKED, door);
  }

  /**
   * The paired node, connected by the network; its attributes and events come here from now on.
   * `connected` is called each time matter.js has (re)connected it, so the lock is read at once
   * rather than at the next ping; while matter.js is not connected to it (no live subscription: its
   * reports would go unheard), it is unreachable.
   */
  attach(node: PairedNode, api: MatterApi, connected: () => void): void {
    this.node = node;
    this.api = api;
    this.subscribeAskedAt = this.now();
    node.events.stateChanged.on((state) => {
      this.log('matter_connection', { state: NODE_STATES[state] ?? state });
      if (state === NODE_CONNECTED) this.subscriptionAlive(connected);
      else {
        this.setPresence(() => {
          this.subscribed = false;
          this.answering = false;
        });
      }
    });
    // Each report or keep-alive of the subscription (and its establishment).
    node.events.connectionAlive.on(() => this.subscriptionAlive(connected));
    node.events.attributeChanged.on(({ path, value }) => this.takeAttribute(path.clusterId as number, path.attributeName, value));
    node.events.eventTriggered.on(({ path, events }) => {
      for (const event of events) this.takeEvent(path.eventName, BigInt(event.eventNumber as bigint | number), event.data as Record<string, unknown> | undefined);
    });
  }

  /** The lock was unpaired: it is unreachable from now on, and its node is let go. */
  detach(): void {
    this.setPresence(() => {
      this.node = null;
      this.api = null;
      this.answering = false;
      this.subscribed = false;
    });
  }

  /** Users with a PIN the lock holds, read from it the first time; 0 for a lock without PIN users (no keypad). */
  async slotCount(): Promise<number> {
    const client = this.client();
    if (this.pinKeypad === null && client !== undefined) await this.readKeypad(client);
    if (this.pinKeypad === 'none') return 0;
    if (this.pinKeypad !== null) return this.pinKeypad.slots;
    throw new Error('the lock cannot be reached');
  }

  /** A code slot as a user with a PIN credential (src/bridge/matter/pin-users.ts). */
  async write(slot: number, content: { digits: string; enabled: boolean } | null): Promise<void> {
    const client = this.client();
    if (client === undefined || this.api === null) throw new Error('the lock cannot be reached');
    await writePinUser(client, slot, content, this.api.timed(PIN_WRITE_TIMED_MS));
  }

  /** Reads the lock's bolt from the lock itself: it is there when it answers. */
  async ping(timeoutMs: number): Promise<void> {
    const client = this.client();
    let answered = false;
    if (client !== undefined) {
      const read = client.getLockStateAttribute(true).then((value) => {
        if (typeof value === 'number') this.takeLockState(value);
        return true;
      }, () => false);
      answered = await Promise.race([read, sleep(timeoutMs, false, { ref: false })]);
    }
    // The first values come with the subscription's priming report, before any change: read what is still unknown.
    if (answered && this.doorState === null && client?.getDoorStateAttribute !== undefined) {
      const door = await client.getDoorStateAttribute(false).catch(() => null);
      if (typeof door === 'number') this.takeDoorState(door);
    }
    if (answered && this.battery === null && this.node !== null && this.api !== null) {
      const level = await this.api.batteryOf(this.node).catch(() => null);
      if (typeof level === 'number') this.takeBattery(level);
    }
    if (answered && this.pinKeypad === null && client !== undefined) await this.readKeypad(client);
    const connected = this.node !== null && this.api !== null && this.api.isConnected(this.node);
    // A node just paired is connected before anyone listens to it.
    if (connected && !this.resubscribing) this.subscribedSinceAsked = true;
    if (!answered && this.subscribedSinceAsked) this.missedRead = true;
    const renewal = answered ? this.renewalDue(connected) : null;
    // Offline from a renewal until the new subscription reports (matter.js may meanwhile say connected, of the old one).
    this.setPresence(() => {
      this.answering = answered;
      this.subscribed = connected && !this.resubscribing && renewal === null;
    });
    if (renewal !== null) this.subscribeAgain(renewal);
  }

  /** The subscription reported: it is live (and any renewal asked for is done). */
  private subscriptionAlive(connected: () => void): void {
    this.resubscribing = false;
    this.subscribedSinceAsked = true;
    this.missedRead = false;
    this.subscribeAgainSeconds = SUBSCRIBE_AGAIN_FIRST_SECONDS;
    if (this.subscribed) return;
    this.setPresence(() => (this.subscribed = true));
    // Read at once rather than at the next ping.
    connected();
  }

  /**
   * Whether the subscription must be made again, the lock answering a read now. matter.js 0.17.9
   * replaces a subscription only once its max interval (about a minute, the lock's choice) and
   * twice the peer's response time have passed without a report, not when the session it lived in
   * ends (a restarted lock knows neither: its reports stop, though matter.js may still say
   * connected), and retries one it could not establish after 15 s doubling to an hour. So: at once
   * when the lock missed a read since its subscription last reported (it was away: restarted,
   * perhaps) or matter.js lost the subscription; after a while when none was established since it
   * was asked for (it may still be on its way: a first read of many locks is long).
   */
  private renewalDue(connected: boolean): 'away' | 'lost' | 'not_established' | null {
    if (this.subscribedSinceAsked && this.missedRead) return 'away';
    if (this.subscribedSinceAsked && !connected) return 'lost';
    if (!this.subscribedSinceAsked && (!connected || this.resubscribing) && this.now() - this.subscribeAskedAt >= this.subscribeAgainSeconds) return 'not_established';
    return null;
  }

  /** Ends the subscription and makes a new one (matter.js reads the whole lock first, and the events since the last taken). */
  private subscribeAgain(cause: 'away' | 'lost' | 'not_established'): void {
    if (this.node === null || this.api === null) return;
    this.log('matter_subscribe_again', { cause, waitedSeconds: Math.round(this.now() - this.subscribeAskedAt) });
    if (cause === 'not_established') this.subscribeAgainSeconds = Math.min(this.subscribeAgainSeconds * 2, SUBSCRIBE_AGAIN_MAX_SECONDS);
    this.subscribeAskedAt = this.now();
    this.subscribedSinceAsked = false;
    this.missedRead = false;
    this.resubscribing = true;
    this.api.subscribeAgain(this.node);
  }

  /**
   * How many codes the lock holds and of how many digits (announced to the service), its lockout
   * made Latchkey's; or that it has no keypad (no PIN users), said once: it is never read again.
   * One read at a time, shared by whoever asks meanwhile (a ping, a code's write).
   */
  private readKeypad(client: DoorLockClient): Promise<void> {
    this.keypadReading ??= this.readKeypadOnce(client).finally(() => {
      this.keypadReading = undefined;
    });
    return this.keypadReading;
  }

  private async readKeypadOnce(client: DoorLockClient): Promise<void> {
    try {
      this.pinKeypad = await readPinKeypad(client, { wrongEntries: MAX_WRONG_ENTRIES, seconds: LOCKOUT_SECONDS });
    } catch (err) {
      // Said once per cause: the ping asks again every few seconds.
      const message = err instanceof Error ? err.message : String(err);
      if (message !== this.keypadUnread) this.log('keypad_unread', { message });
      this.keypadUnread = message;
      return;
    }
    if (this.pinKeypad === null) {
      this.pinKeypad = 'none';
      this.log('keypad_absent');
      this.events?.keypadDescribed(null);
      return;
    }
    this.log('keypad', { slots: this.pinKeypad.slots, digits: this.pinKeypad.digits });
    this.events?.keypadDescribed(this.pinKeypad.digits);
  }

  private client(): DoorLockClient | undefined {
    return this.node === null || this.api === null ? undefined : this.api.doorLock(this.node);
  }

  /** A timed invoke whose window ends at the deadline, then reads until the lock says it is there, both only until the deadline. */
  protected async move(locked: boolean, deadline: number): Promise<Outcome> {
    const remainingMs = () => Math.floor((deadline - this.now()) * 1000);
    const client = this.client();
    if (client === undefined || this.api === null) return { ok: false, error: 'busy: the lock cannot be reached' };
    if (remainingMs() <= 0) return { ok: false, error: DEADLINE_PASSED };
    const target = locked ? LOCKED : UNLOCKED;
    try {
      const options = this.api.timed(Math.max(1, Math.min(remainingMs(), 10_000)));
      const invoked = locked ? client.lockDoor({}, options) : client.unlockDoor({}, options);
      // matter.js may hold the invoke while the lock is away: stop waiting at the deadline.
      const done = await Promise.race([invoked.then(() => true), sleep(Math.max(0, remainingMs()), false, { ref: false })]);
      while (done && remainingMs() > 0) {
        const value = await Promise.race([client.getLockStateAttribute(true), sleep(Math.max(0, remainingMs()), undefined, { ref: false })]);
        if (typeof value === 'number') this.takeLockState(value);
        if (value === target) return { ok: true };
        await sleep(Math.min(POLL_MS, Math.max(0, remainingMs())));
      }
    } catch (err) {
      if (remainingMs() > 0) return { ok: false, error: `busy: the lock did not take the command (${err instanceof Error ? err.message : String(err)})` };
    }
    return this.abandon(locked);
  }

  protected async moveBySchedule(locked: boolean, cause: string): Promise<void> {
    const client = this.client();
    if (client === undefined || this.api === null) throw new Error('the lock is not reachable');
    this.log('schedule', { locked, cause });
    const options = this.api.timed(10_000);
    await (locked ? client.lockDoor({}, options) : client.unlockDoor({}, options));
    const value = await client.getLockStateAttribute(true);
    if (typeof value === 'number') this.takeLockState(value);
  }

  private setAnswering(answering: boolean): void {
    this.setPresence(() => (this.answering = answering));
  }

  /** Makes a change to what `reachable` is made of, and says so when it changed it. */
  private setPresence(change: () => void): void {
    const before = this.reachable;
    change();
    if (this.reachable !== before) this.events?.reachable(this.reachable);
  }

  private takeAttribute(clusterId: number, name: string, value: unknown): void {
    if (name === 'lockState' && typeof value === 'number') this.takeLockState(value);
    else if (name === 'doorState' && typeof value === 'number') this.takeDoorState(value);
    else if (name === 'batPercentRemaining' && typeof value === 'number') this.takeBattery(value);
    void clusterId;
  }

  private takeLockState(value: number): void {
    if (this.lockState === value) return;
    const wasUnknown = this.lockState === null;
    this.lockState = value;
    // Not fully locked: the bolt could not reach where it was driven.
    this.jammed = value === NOT_FULLY_LOCKED;
    if (wasUnknown) this.setAnswering(true);
    this.boltReported(value === LOCKED);
    this.events?.changed();
  }

  private takeDoorState(value: number): void {
    if (this.doorState === value) return;
    const before = this.state.doorOpen;
    this.doorState = value;
    if (value === DOOR_JAMMED) this.jammed = true;
    const after = this.state.doorOpen;
    if (after !== undefined && after !== before) this.events?.doorChanged(after);
    else this.events?.changed();
  }

  private takeBattery(halfPercent: number): void {
    const battery = Math.max(0, Math.min(100, Math.round(halfPercent / 2)));
    if (this.battery === battery) return;
    this.battery = battery;
    this.events?.changed();
  }

  private takeEvent(name: string, number: bigint, data: Record<string, unknown> | undefined): void {
    if (number <= this.lastEventNumber) return;
    this.lastEventNumber = number;
    if (name === 'lockOperation') {
      const source = SOURCES[Number(data?.operationSource)] ?? 'unspecified';
      const slot = typeof data?.userIndex === 'number' ? data.userIndex : undefined;
      const locked = Number(data?.lockOperationType) === 0;
      this.log('operation', { source, locked, ...(slot === undefined ? {} : { slot }) });
      if (source !== 'remote') this.late.personAtTheDoor();
      // Someone at the door: the keypad, or a hand (the thumb turn, a key, the lock's button).
      const reported = source === 'keypad' ? 'keypad' : source === 'manual' || source === 'button' ? 'manual' : null;
      if (reported !== null) this.events?.operated({ source: reported, locked, ...(slot === undefined ? {} : { slot }) });
    } else if (name === 'lockOperationError') {
      const source = SOURCES[Number(data?.operationSource)] ?? 'unspecified';
      this.log('operation_error', { source, error: Number(data?.operationError) });
      // A PIN it does not hold, or holds for a user disabled now (a code outside its hours, named by its user): a refused entry.
      const disabledUser = Number(data?.operationError) === ERROR_DISABLED_USER && typeof data?.userIndex === 'number' ? data.userIndex : undefined;
      if (source === 'keypad') this.events?.keypadRefused('wrong', disabledUser);
    } else if (name === 'doorLockAlarm') {
      const code = Number(data?.alarmCode);
      if (code === ALARM_WRONG_CODE_LIMIT) return this.events?.keypadRefused('lockout');
      if (code === ALARM_JAMMED) this.jammed = true;
      if (code === ALARM_FORCED_OPEN) this.tamper = true;
      this.events?.changed();
    }
  }
}
