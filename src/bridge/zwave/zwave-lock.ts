import { setTimeout as sleep } from 'node:timers/promises';
import { DEADLINE_PASSED } from '../../lock-edge/command-check.js';
import type { BoltState, LockLog, Outcome } from '../../lock-edge/lock-endpoint.js';
import type { SlotWriter } from '../keypad-slots.js';
import { RealLock } from '../real-lock.js';
import type { ZwaveEvent, ZwaveNodeState, ZwaveServerClient, ZwaveValue } from './server-client.js';

/**
 * One Z-Wave door lock (a node of Z-Wave JS) as a Latchkey lock's bolt: Door Lock CC moves and
 * reports the bolt, Notification CC the door, jams, tamper and keypad or manual operations (with
 * the user-code slot, and wrong codes), Battery CC the battery, User Code CC the codes in its slots
 * (a SlotWriter for KeypadSlots). What the lock's config decides on its own (the
 * relock after an unlock's duration, the unlock-between window) is scheduled by LockMechanism
 * and carried out here.
 *
 * Never late: a command is sent only before its deadline, and waited for only until then. The
 * radio may still deliver it afterwards (Z-Wave JS retries): LateUnlockWatch locks it again.
 */

const DOOR_LOCK = 0x62;
const NOTIFICATION = 0x71;
const BATTERY = 0x80;
const USER_CODE = 0x63;
// User Code CC's user id status.
const CODE_ENABLED = 1;
const CODE_DISABLED = 2;
const SECURED = 0xff;
const UNSECURED = 0x00;
const NODE_DEAD = 3;
const NODE_ALIVE = 4;
/**
 * Pings in a row the lock leaves unanswered before it is unreachable. One is not enough: Z-Wave JS
 * sends a ping once, without the retries of a command, so one frame lost on the radio (or, in the
 * mock stack, one acknowledgement later than a second on a loaded machine) would take the lock
 * offline for a ping's interval.
 */
const MISSED_PINGS_UNREACHABLE = 2;
// Access Control (type 6) events.
const ACCESS_CONTROL = 6;
const HOME_SECURITY = 7;
const OPERATIONS: Record<number, { source: 'manual' | 'keypad' | 'rf' | 'auto'; locked: boolean }> = {
  1: { source: 'manual', locked: true }, 2: { source: 'manual', locked: false },
  3: { source: 'rf', locked: true }, 4: { source: 'rf', locked: false },
  5: { source: 'keypad', locked: true }, 6: { source: 'keypad', locked: false },
  9: { source: 'auto', locked: true },
};
const LOCK_JAMMED = 11;
// A code the lock does not hold (or holds disabled); its own lockout after too many.
const INVALID_CREDENTIAL = 0x32;
const KEYPAD_DISABLED = 0x10;
const CODE_LIMIT_EXCEEDED = 0x13;
const DOOR_OPEN = 22;
const DOOR_CLOSED = 23;

/** How long a slot write may take (Z-Wave JS sends it, then asks the slot back), milliseconds. */
const SLOT_WRITE_MS = 30_000;

/** How often a command's bolt is asked for while it has not arrived, milliseconds. */
const POLL_MS = 200;

export const ZWAVE_CAPABILITIES = ['keypad', 'doorSensor', 'battery', 'jamDetection'];
/** What User Code CC lets a slot hold (protocol 1.5 `device.codeDigits`): 4 to 10 characters, here digits. */
export const ZWAVE_CODE_DIGITS = { min: 4, max: 10 };

export class ZwaveLock extends RealLock implements SlotWriter {
  private mode: number | null = null;
  private supportedUsers: number | null = null;
  private doorFromNotification: boolean | null = null;
  private doorFromDoorLock: boolean | null = null;
  private nodeStatus: number | null = null;
  /** Pings in a row the lock has left unanswered. */
  private missedPings = 0;
  private pinging = false;

  constructor(
    readonly nodeId: number,
    private readonly server: ZwaveServerClient,
    now: () => number,
    log: LockLog,
  ) {
    super(now, log);
  }

  get reachable(): boolean {
    return this.server.connected && this.mode !== null && this.nodeStatus !== NODE_DEAD;
  }

  get state(): BoltState {
    return this.stateOf(this.mode === SECURED, this.doorFromNotification ?? this.doorFromDoorLock);
  }

  /** User Code CC's number of slots, asked of the lock once (Z-Wave JS answers from its cache when it has it). */
  async slotCount(): Promise<number> {
    if (this.supportedUsers !== null) return this.supportedUsers;
    const count = (await this.server.request('endpoint.invoke_cc_api', { nodeId: this.nodeId, endpoint: 0, commandClass: USER_CODE, methodName: 'getUsersCount', args: [] }, SLOT_WRITE_MS)).response;
    if (typeof count !== 'number' || count < 1) throw new Error('the lock did not say how many user codes it holds');
    return (this.supportedUsers = count);
  }

  /**
   * A User Code slot (User Code CC, through its API: Z-Wave JS checks the code, 4 to 10 of the
   * characters the lock takes, and asks the slot back): the digits enabled or disabled, or cleared.
   */
  async write(slot: number, content: { digits: string; enabled: boolean } | null): Promise<void> {
    const [methodName, args] = content === null ? ['clear', [slot]] : ['set', [slot, content.enabled ? CODE_ENABLED : CODE_DISABLED, content.digits]];
    await this.server.request('endpoint.invoke_cc_api', { nodeId: this.nodeId, endpoint: 0, commandClass: USER_CODE, methodName, args }, SLOT_WRITE_MS);
  }

  /** The node as start_listening reports it (every (re)connection). */
  takeNodeState(node: ZwaveNodeState | undefined): void {
    this.nodeStatus = node?.status ?? null;
    this.missedPings = 0;
    this.mode = null;
    for (const value of node?.values ?? []) this.takeValue(value, value.value, false);
    this.events?.reachable(this.reachable);
    this.events?.changed();
  }

  /** The connection to Z-Wave JS Server is lost: the lock cannot be reached until it is back. */
  serverLost(): void {
    this.events?.reachable(false);
  }

  /**
   * Pings the node (one at a time): a node that leaves MISSED_PINGS_UNREACHABLE pings in a row
   * unanswered is unreachable; one that answers is there (Z-Wave JS marks it alive again, too).
   */
  async ping(timeoutMs: number): Promise<void> {
    if (this.pinging) return;
    this.pinging = true;
    let responded: boolean;
    try {
      responded = (await this.server.request('node.ping', { nodeId: this.nodeId }, timeoutMs)).responded === true;
    } catch {
      responded = false;
    } finally {
      this.pinging = false;
    }
    if (responded) {
      this.answered();
      if (this.nodeStatus === NODE_DEAD) this.nodeStatus = NODE_ALIVE;
    } else {
      this.missedPings += 1;
      // Said until it counts as unreachable (a lock away for hours is not logged every ping).
      if (this.missedPings <= MISSED_PINGS_UNREACHABLE) this.log('ping_missed', { node: this.nodeId, missed: this.missedPings });
      if (this.missedPings >= MISSED_PINGS_UNREACHABLE) this.nodeStatus = NODE_DEAD;
    }
    this.events?.reachable(this.reachable);
  }

  /** The node answered: the pings it missed are forgotten. Z-Wave JS's `alive` may come before the ping's own answer: either says so. */
  private answered(): void {
    if (this.missedPings > 0) this.log('ping_answered', { node: this.nodeId, missed: this.missedPings });
    this.missedPings = 0;
  }

  takeEvent(event: ZwaveEvent): void {
    const args = event.args ?? {};
    switch (event.event) {
      case 'value updated':
      case 'value added':
      case 'value notification':
        return this.takeValue(args as unknown as ZwaveValue, args.newValue ?? args.value, true);
      case 'notification':
        return this.takeNotification(args);
      case 'dead':
        // Not alone: Z-Wave JS declares a node dead after one unanswered ping (sent once), which the
        // bridge counts itself; two in a row make the lock unreachable (ping).
        this.log('node_dead', { node: this.nodeId });
        return;
      case 'alive':
        this.nodeStatus = NODE_ALIVE;
        this.answered();
        this.events?.reachable(this.reachable);
        return;
      default:
        return;
    }
  }

  /**
   * Sends the bolt to `locked`, then asks the lock where its bolt is until it says `locked`, both
   * only until `deadline`. Through the Door Lock CC API itself, not `set_value`: Z-Wave JS updates a
   * value set that way optimistically, before the lock has moved.
   */
  protected async move(locked: boolean, deadline: number): Promise<Outcome> {
    const remainingMs = () => (deadline - this.now()) * 1000;
    const target = locked ? SECURED : UNSECURED;
    if (remainingMs() <= 0) return { ok: false, error: DEADLINE_PASSED };
    try {
      await this.invoke('set', [target], remainingMs());
      while (remainingMs() > 0) {
        const report = (await this.invoke('get', [], remainingMs())).response as { currentMode?: unknown } | undefined;
        if (report?.currentMode === target) return { ok: true };
        await sleep(Math.min(POLL_MS, Math.max(0, remainingMs())));
      }
    } catch (err) {
      if (remainingMs() > 0) return { ok: false, error: `busy: the lock did not take the command (${err instanceof Error ? err.message : String(err)})` };
    }
    return this.abandon(locked);
  }

  private invoke(methodName: 'set' | 'get', args: unknown[], timeoutMs: number): Promise<Record<string, unknown>> {
    return this.server.request('endpoint.invoke_cc_api', { nodeId: this.nodeId, endpoint: 0, commandClass: DOOR_LOCK, methodName, args }, timeoutMs);
  }

  protected async moveBySchedule(locked: boolean, cause: string): Promise<void> {
    this.log('schedule', { node: this.nodeId, locked, cause });
    await this.invoke('set', [locked ? SECURED : UNSECURED], 30_000);
    // Asked back afterwards: the report updates the bolt as Z-Wave JS knows it (and so the state published).
    await this.invoke('get', [], 30_000);
  }

  private takeValue(value: ZwaveValue, newValue: unknown, live: boolean): void {
    if ((value.endpoint ?? 0) !== 0) return;
    const before = JSON.stringify(this.state, (key, v: unknown) => (key === 'ts' ? undefined : v));
    const doorBefore = this.doorFromNotification ?? this.doorFromDoorLock;
    if (value.commandClass === DOOR_LOCK && value.property === 'currentMode' && typeof newValue === 'number') this.takeMode(newValue, live);
    else if (value.commandClass === DOOR_LOCK && value.property === 'doorStatus' && typeof newValue === 'string') this.doorFromDoorLock = newValue === 'open';
    else if (value.commandClass === BATTERY && value.property === 'level' && typeof newValue === 'number') this.battery = Math.max(0, Math.min(100, Math.round(newValue)));
    else if (value.commandClass === NOTIFICATION && value.property === 'Access Control' && value.propertyKey === 'Door state') {
      if (newValue === DOOR_OPEN || newValue === DOOR_CLOSED) this.doorFromNotification = newValue === DOOR_OPEN;
    } else if (value.commandClass === NOTIFICATION && value.property === 'Access Control' && value.propertyKey === 'Lock state' && typeof newValue === 'number') this.jammed = newValue === LOCK_JAMMED;
    else if (value.commandClass === NOTIFICATION && value.property === 'Home Security' && value.propertyKey === 'Cover status' && typeof newValue === 'number') this.tamper = newValue !== 0;
    else return;
    if (!live) return;
    const doorNow = this.doorFromNotification ?? this.doorFromDoorLock;
    if (doorNow !== null && doorNow !== doorBefore) this.events?.doorChanged(doorNow);
    else if (JSON.stringify(this.state, (key, v: unknown) => (key === 'ts' ? undefined : v)) !== before) this.events?.changed();
  }

  private takeMode(mode: number, live: boolean): void {
    const wasUnknown = this.mode === null;
    this.mode = mode;
    if (wasUnknown && live) this.events?.reachable(this.reachable);
    this.boltReported(mode === SECURED);
  }

  private takeNotification(args: Record<string, unknown>): void {
    const type = args.type;
    const event = args.event;
    if (type === ACCESS_CONTROL && typeof event === 'number') {
      const operation = OPERATIONS[event];
      if (operation !== undefined) {
        const parameters = args.parameters as { userId?: unknown } | undefined;
        const slot = typeof parameters?.userId === 'number' ? parameters.userId : undefined;
        this.log('operation', { node: this.nodeId, ...operation, ...(slot === undefined ? {} : { slot }) });
        if (operation.source !== 'rf') this.late.personAtTheDoor();
        if (operation.source === 'keypad' || operation.source === 'manual') this.events?.operated({ source: operation.source, locked: operation.locked, ...(slot === undefined ? {} : { slot }) });
      }
      if (event === INVALID_CREDENTIAL) this.events?.keypadRefused('wrong');
      if (event === KEYPAD_DISABLED || event === CODE_LIMIT_EXCEEDED) this.events?.keypadRefused('lockout');
      if (event === LOCK_JAMMED && this.jammed !== true) {
        this.jammed = true;
        this.events?.changed();
      }
    } else if (type === HOME_SECURITY && this.tamper !== true && event === 3) {
      this.tamper = true;
      this.events?.changed();
    }
  }
}
