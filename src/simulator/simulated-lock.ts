import type { LockConfig } from '../device-protocol/payloads.js';
import { DEADLINE_PASSED } from '../lock-edge/command-check.js';
import type { TrustAnchor } from '../crypto/chain.js';
import { LockEndpoint, type Bolt, type BoltState, type LockLog, type Outcome } from '../lock-edge/lock-endpoint.js';
import { LockMechanism } from '../lock-edge/lock-mechanism.js';
import type { KeypadEntry } from '../lock-edge/keypad.js';
import { lanEndpointUrl, startLanServer, type LanServer } from '../lock-edge/lan-server.js';

/** Where the simulator takes signed requests on the LAN (protocol 1.3). */
export interface SimulatorLan {
  /** 0: any free port. */
  port: number;
  /** Interface to listen on; default all. */
  host?: string;
  /** The host (name or address) phones reach it at, in the URL it announces; default `host`, else 127.0.0.1. */
  advertiseHost?: string;
}

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
  trustedRoot?: string | TrustAnchor;
  /** Where used tokens are remembered across restarts; without it, in memory only. */
  replayFile?: string;
  /** Where operation reports wait while the service cannot be reached; without it, in memory only. */
  outboxFile?: string;
  /** Serve unlock on the LAN (protocol 1.3). */
  lan?: SimulatorLan;
  /** Where a lockdown in force is kept across restarts (protocol 1.4); without it, in memory only. */
  lockdownFile?: string;
  /** Where the keypad keeps each code's uses and a lockout across restarts; without it, in memory only. */
  keypadFile?: string;
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
  private lanServer: LanServer | undefined;

  constructor(private readonly options: SimulatedLockOptions) {
    const { replyDelayMs, trustedRoot, replayFile, lockdownFile, keypadFile, topicPrefix, lan: _lan, outboxFile, ...rest } = options;
    this.endpoint = new LockEndpoint({
      ...rest,
      device: SIMULATOR_DEVICE,
      replyDelayMs,
      ...(trustedRoot === undefined ? {} : { trustedRoot }),
      ...(replayFile === undefined ? {} : { replayFile }),
      ...(lockdownFile === undefined ? {} : { lockdownFile }),
      ...(keypadFile === undefined ? {} : { keypadFile }),
      ...(topicPrefix === undefined ? {} : { topicPrefix }),
      ...(outboxFile === undefined ? {} : { outboxFile }),
    });
    this.mechanism = new LockMechanism(options.now, (state, cause) => {
      options.log('state', { ...state, cause });
      this.endpoint.publishState();
    });
    this.endpoint.attach(this);
  }

  /** The lockdown in force (protocol 1.4), or null. */
  get lockdownId(): string | null {
    return this.endpoint.lockdownId;
  }

  lockDown(): void {
    this.mechanism.lockDown();
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

  /** Operation reports (protocol 1.3) not yet taken by the broker. */
  get unsentReports(): number {
    return this.endpoint.unsentReports;
  }

  /** The URL of its LAN endpoint, once serving (protocol 1.3). */
  lanUrl: string | undefined;

  /**
   * Starts its LAN endpoint (when asked for, once), then connects, subscribes and announces itself
   * online with its state. Without waiting for the broker (`waitForBroker` false) it returns at
   * once and keeps trying, as a real lock does.
   */
  async connect(waitForBroker = true): Promise<void> {
    const { lan } = this.options;
    if (lan !== undefined && this.lanServer === undefined) {
      this.lanServer = await startLanServer({
        port: lan.port,
        ...(lan.host === undefined ? {} : { host: lan.host }),
        lockFor: (lockId) => (lockId === this.options.id.toLowerCase() ? this.endpoint : undefined),
        log: this.options.log,
      });
      this.lanUrl = lanEndpointUrl(lan.advertiseHost ?? lan.host ?? '127.0.0.1', this.lanServer.port);
      this.endpoint.setDirectAccessEndpoints([this.lanUrl]);
    }
    await this.endpoint.connect(waitForBroker);
  }

  /**
   * Someone at the door (protocol 1.3): a code entered at the keypad (`slot`: its user-code slot)
   * or a hand on the thumb turn moves the bolt; the lock reports how, then the state it leads to.
   * An unlock lasts the config's unlock duration, as any other.
   */
  operate(source: 'keypad' | 'manual', locked: boolean, slot?: number): boolean {
    if (locked && this.mechanism.windowOpen) return false;
    this.endpoint.reportOperation({ source, locked, ...(slot === undefined ? {} : { slot }) });
    if (locked) this.mechanism.lock();
    else this.mechanism.unlockFor(this.endpoint.lockConfig?.unlockDuration ?? DEFAULT_UNLOCK_SECONDS);
    return true;
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
    await this.lanServer?.close();
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
