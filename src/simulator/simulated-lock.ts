import type { LockConfig } from '../device-protocol/payloads.js';
import { DEADLINE_PASSED } from '../lock-edge/command-check.js';
import { LockEndpoint, type Bolt, type BoltState, type LockLog, type Outcome } from '../lock-edge/lock-endpoint.js';
import { LockMechanism } from '../lock-edge/lock-mechanism.js';
import type { KeypadEntry } from '../lock-edge/keypad.js';

/** One line of the simulator's log: what happened, with details (never the secret or a token). */
export type SimulatorLog = LockLog;

export interface SimulatedLockOptions {
  id: string;
  secret: string;
  mqttUrl: string;
  topicPrefix?: string;
  /** Wait this long before handling each command (a slow lock; beyond the service's timeout it answers 504). */
  replyDelayMs: number;
  /** Base64 DER root CA for EdDSA tokens; without it only RS256 tokens can be accepted. */
  trustedRoot?: string;
  /** Where used tokens are remembered across restarts; without it, in memory only. */
  replayFile?: string;
  /** Unix seconds. */
  now: () => number;
  log: SimulatorLog;
}

/** What the simulator says it is (protocol 1.2): a door sensor (the `open` and `close` inputs) and a keypad (`code`). */
const SIMULATOR_DEVICE = { kind: 'simulator', capabilities: ['keypad', 'doorSensor'] };
/** Unlock duration before any config arrives, seconds. */
const DEFAULT_UNLOCK_SECONDS = 5;

/**
 * A virtual lock that follows docs/device-protocol.md: the lock link's side of any lock
 * (LockEndpoint) in front of a simulated bolt and door (LockMechanism), which keeps working
 * while the lock is offline.
 */
export class SimulatedLock implements Bolt {
  private readonly endpoint: LockEndpoint;
  private readonly mechanism: LockMechanism;

  constructor(private readonly options: SimulatedLockOptions) {
    const { replyDelayMs, trustedRoot, replayFile, topicPrefix, ...rest } = options;
    this.endpoint = new LockEndpoint({
      ...rest,
      device: SIMULATOR_DEVICE,
      replyDelayMs,
      ...(trustedRoot === undefined ? {} : { trustedRoot }),
      ...(replayFile === undefined ? {} : { replayFile }),
      ...(topicPrefix === undefined ? {} : { topicPrefix }),
    });
    this.mechanism = new LockMechanism(options.now, (state, cause) => {
      options.log('state', { ...state, cause });
      this.endpoint.publishState();
    });
    this.endpoint.attach(this);
  }

  get state(): BoltState {
    return this.mechanism.state;
  }

  get connected(): boolean {
    return this.endpoint.connected;
  }

  get configVersion(): number | null {
    return this.endpoint.configVersion;
  }

  /**
   * Connects, subscribes, then announces itself online with its state. Without waiting for the
   * broker (`waitForBroker` false) it returns at once and keeps trying, as a real lock does.
   */
  connect(waitForBroker = true): Promise<void> {
    return this.endpoint.connect(waitForBroker);
  }

  /** Drops the TCP connection without DISCONNECT, like a power cut: the broker publishes the will. */
  powerCut(): Promise<void> {
    return this.endpoint.powerCut();
  }

  /** The door sensor changed: an event, then the new state. */
  door(open: boolean): void {
    if (this.mechanism.state.doorOpen === open) return;
    this.endpoint.publishDoorEvent(open);
    this.mechanism.setDoor(open);
  }

  /** A code typed at the keypad (protocol 1.5): the lock checks it itself; its log names the code, never the digits. */
  enterCode(digits: string): Promise<KeypadEntry> {
    return this.endpoint.enterCode(digits);
  }

  /** Orderly shutdown: reports itself offline, then disconnects cleanly. */
  async close(): Promise<void> {
    this.mechanism.stop();
    await this.endpoint.close();
  }

  configure(config: LockConfig | null): void {
    this.mechanism.setWindow(config?.unlockBetween ?? null);
  }

  async mutate(operation: { locked: boolean; duration?: number }, deadline: number, config: LockConfig | null): Promise<Outcome> {
    if (this.options.now() > deadline) return { ok: false, error: DEADLINE_PASSED };
    if (operation.locked) {
      if (!this.mechanism.lock()) return { ok: false, error: 'unlock_window_active: the unlock-between window holds the lock open' };
    } else {
      this.mechanism.unlockFor(operation.duration ?? config?.unlockDuration ?? DEFAULT_UNLOCK_SECONDS);
    }
    return { ok: true };
  }
}
