import { setTimeout as sleep } from 'node:timers/promises';
import type { MqttClient } from 'mqtt';
import { connectMqtt, reconnectWithBackoff } from '../mqtt/connection.js';
import { decodeCommand, decodeConfig, type CommandPayload, type LockConfig, type LockState } from '../device-protocol/payloads.js';
import { DEFAULT_TOPIC_PREFIX, lockTopic, type TopicKind } from '../device-protocol/topics.js';
import { CommandChecker, DEADLINE_PASSED, isPastDeadline } from '../lock-edge/command-check.js';
import { ReplayMemory } from '../lock-edge/replay-memory.js';
import { LockMechanism } from './lock-mechanism.js';

/** One line of the simulator's log: what happened, with details (never the secret or a token). */
export type SimulatorLog = (action: string, fields?: Record<string, unknown>) => void;

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

type Reply = { id: string; ok: true; state: LockState } | { id: string; ok: false; error: string };

/** How long closing waits for the broker to take the lock's `online: false`. */
const GOODBYE_TIMEOUT_MS = 2_000;
/** What the simulator says it is (protocol 1.2): it has a door sensor (the `open` and `close` inputs). */
const SIMULATOR_DEVICE = { kind: 'simulator', capabilities: ['doorSensor'] };
/** Unlock duration before any config arrives, seconds. */
const DEFAULT_UNLOCK_SECONDS = 5;

/**
 * A virtual lock that follows docs/device-protocol.md: presence with a will, retained state,
 * commands verified on the lock, retained config, door events. Its bolt (LockMechanism) keeps
 * working while it is offline.
 */
export class SimulatedLock {
  private client: MqttClient | null = null;
  private config: LockConfig | null = null;
  private readonly mechanism: LockMechanism;
  private readonly checker: CommandChecker;
  private readonly prefix: string;
  private readonly replays: ReplayMemory;

  constructor(private readonly options: SimulatedLockOptions) {
    this.prefix = options.topicPrefix ?? DEFAULT_TOPIC_PREFIX;
    this.replays = options.replayFile === undefined ? new ReplayMemory() : ReplayMemory.open(options.replayFile, options.now());
    this.checker = new CommandChecker({ lockId: options.id, now: options.now, replays: this.replays, ...(options.trustedRoot === undefined ? {} : { trustedRoot: options.trustedRoot }) });
    this.mechanism = new LockMechanism(options.now, (state, cause) => {
      options.log('state', { ...state, cause });
      this.publishState();
    });
  }

  get state(): LockState {
    return this.mechanism.state;
  }

  get connected(): boolean {
    return this.client?.connected === true;
  }

  get configVersion(): number | null {
    return this.config?.version ?? null;
  }

  /** Connects, subscribes, then announces itself online with its state. */
  async connect(): Promise<void> {
    if (this.client !== null) return;
    const { id, secret } = this.options;
    const client = await connectMqtt(this.options.mqttUrl, {
      clientId: id,
      username: id,
      password: secret,
      clean: true,
      reconnectPeriod: 1_000,
      will: { topic: this.topic('online'), payload: Buffer.from('{"online":false}'), qos: 1, retain: true },
    });
    this.client = client;
    reconnectWithBackoff(client);
    client.on('message', (topic, payload) => this.receive(topic, payload));
    client.on('error', (err) => this.options.log('mqtt_error', { message: err.message }));
    client.on('offline', () => this.options.log('disconnected'));
    client.on('connect', () => this.announce()); // reconnects (mqtt.js resubscribes by itself)
    await client.subscribeAsync([this.topic('command'), this.topic('config')], { qos: 1 });
    this.announce();
  }

  /** Drops the TCP connection without DISCONNECT, like a power cut: the broker publishes the will. */
  async powerCut(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client !== null) await client.endAsync(true);
    this.options.log('offline');
  }

  /** The door sensor changed: an event, then the new state (docs/device-protocol.md, in that order). */
  door(open: boolean): void {
    if (this.mechanism.state.doorOpen === open) return;
    this.publish('event', { type: open ? 'DOOR_OPEN' : 'DOOR_CLOSE', ts: this.options.now() }, false);
    this.mechanism.setDoor(open);
  }

  /** Orderly shutdown: reports itself offline, then disconnects cleanly. */
  async close(): Promise<void> {
    this.mechanism.stop();
    this.replays.close();
    const client = this.client;
    this.client = null;
    if (client === null) return;
    // Say goodbye if the broker takes it within a moment; a broker that stopped answering must not hold the lock's shutdown.
    const goodbye = client.connected ? client.publishAsync(this.topic('online'), '{"online":false}', { qos: 1, retain: true }).then(() => true, () => false) : Promise.resolve(false);
    const said = await Promise.race([goodbye, sleep(GOODBYE_TIMEOUT_MS, false, { ref: false })]);
    await client.endAsync(!said);
  }

  private topic(kind: TopicKind): string {
    return lockTopic(this.prefix, this.options.id, kind);
  }

  private publish(kind: TopicKind, body: object, retain: boolean): void {
    if (this.client === null) return; // offline: state is re-announced on reconnect
    this.client.publish(this.topic(kind), JSON.stringify(body), { qos: 1, retain });
  }

  /** The state, with the config version held (protocol 1.1: the service re-sends a newer config). */
  private publishState(): void {
    this.publish('state', { ...this.mechanism.state, configVersion: this.configVersion }, true);
  }

  private announce(): void {
    this.publish('online', { online: true, configVersion: this.configVersion, device: SIMULATOR_DEVICE }, true);
    this.publishState();
    this.options.log('connected', { url: withoutCredentials(this.options.mqttUrl) });
  }

  private receive(topic: string, payload: Buffer): void {
    if (topic === this.topic('config')) this.applyConfig(payload);
    else if (topic === this.topic('command')) {
      this.handleCommand(payload).catch((err: unknown) => this.options.log('error', { message: err instanceof Error ? err.message : String(err) }));
    }
  }

  private applyConfig(payload: Buffer): void {
    if (payload.length === 0) {
      this.config = null;
      this.mechanism.setWindow(null);
      this.options.log('config', { cleared: true });
      return;
    }
    const decoded = decodeConfig(payload);
    if (!decoded.ok) return this.options.log('config_ignored', { reason: decoded.reason });
    const config = decoded.value;
    if (this.config !== null && config.version < this.config.version) {
      return this.options.log('config_ignored', { reason: `version ${config.version} older than ${this.config.version}` });
    }
    const changed = this.config?.version !== config.version;
    this.config = config;
    this.mechanism.setWindow(config.unlockBetween);
    if (changed) this.publishState();
    this.options.log('config', { version: config.version, users: config.users.length, unlockDuration: config.unlockDuration, unlockBetween: config.unlockBetween !== null });
  }

  private async handleCommand(payload: Buffer): Promise<void> {
    const decoded = decodeCommand(payload);
    if (!decoded.ok) {
      const id = commandIdOf(payload);
      this.options.log('command_invalid', { id, reason: decoded.reason });
      if (id !== null) this.reply({ id, ok: false, error: `bad_command: ${decoded.reason}` });
      return;
    }
    if (this.options.replyDelayMs > 0) await sleep(this.options.replyDelayMs);
    this.reply(await this.execute(decoded.value));
  }

  private async execute(command: CommandPayload): Promise<Reply> {
    const { id } = command;
    const checked = await this.checker.check(command, this.config);
    if (!checked.ok) {
      this.options.log('command_refused', { id, error: checked.error });
      return { id, ok: false, error: checked.error };
    }
    const { operation, userId } = checked;
    if (operation.type !== 'MUTATE_LOCK') {
      this.options.log('command_refused', { id, user: userId, error: `unsupported_operation: ${operation.type}` });
      return { id, ok: false, error: `unsupported_operation: ${operation.type} is delivered through config` };
    }
    // Checked again as the bolt is about to move: the check itself may have taken a while.
    if (isPastDeadline(command, this.options.now())) {
      this.options.log('command_refused', { id, user: userId, error: DEADLINE_PASSED });
      return { id, ok: false, error: DEADLINE_PASSED };
    }
    if (operation.locked) {
      if (!this.mechanism.lock()) return { id, ok: false, error: 'unlock_window_active: the unlock-between window holds the lock open' };
    } else {
      this.mechanism.unlockFor(operation.duration ?? this.config?.unlockDuration ?? DEFAULT_UNLOCK_SECONDS);
    }
    this.options.log('command', { id, user: userId, locked: operation.locked });
    return { id, ok: true, state: this.mechanism.state };
  }

  private reply(reply: Reply): void {
    this.publish('reply', reply, false);
    this.options.log('reply', reply.ok ? { id: reply.id, ok: true } : { id: reply.id, ok: false, error: reply.error });
  }
}

/** The `id` of a command too malformed to decode, so the service still gets an answer. */
function commandIdOf(payload: Buffer): string | null {
  try {
    const id = (JSON.parse(payload.toString('utf8')) as { id?: unknown }).id;
    return typeof id === 'string' && id.length > 0 && id.length <= 64 ? id : null;
  } catch {
    return null;
  }
}

/** The broker URL for the log, without any user name or password it carries. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}
