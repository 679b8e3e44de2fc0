import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MqttClient } from 'mqtt';
import { connectMqtt, reconnectWithBackoff, startMqtt } from '../mqtt/connection.js';
import { decodeCommand, decodeConfig, type CommandPayload, type LockConfig, type LockDevice, type LockState, type OperationReport, type OperationSource } from '../device-protocol/payloads.js';
import { decodeOperationToken } from '../operations/body.js';
import { DEFAULT_TOPIC_PREFIX, isValidReplyRoute, lockTopic, routedReplyTopic, type TopicKind } from '../device-protocol/topics.js';
import { CommandChecker, DEADLINE_PASSED, isPastDeadline, lockTrustAnchor } from './command-check.js';
import type { TrustAnchor } from '../crypto/chain.js';
import { Keypad, LOCKOUT_SECONDS, type KeypadEntry, type KeypadMirror } from './keypad.js';
import { OperationOutbox } from './outbox.js';
import { LockdownGuard } from './lockdown.js';
import { ReplayMemory } from './replay-memory.js';

/** One line of a lock's log: what happened, with details (never the secret or a token). */
export type LockLog = (action: string, fields?: Record<string, unknown>) => void;

/** The state a lock reports, without the config version (the endpoint adds it). */
export type BoltState = Omit<LockState, 'configVersion'>;

export type Outcome = { ok: true } | { ok: false; error: string };

/** What became of a signed request taken on the LAN (protocol 1.3). */
export type LocalOutcome = { ok: true; userId: string; locked: boolean } | { ok: false; error: string };

/** How long a request taken on the LAN may take, from its arrival, when the lock has no reply timeout of its own (milliseconds). */
const LOCAL_DEADLINE_MS = 5_000;

/** The lock's hardware (or its simulation) behind the lock link. */
export interface Bolt {
  readonly state: BoltState;
  /**
   * Carries out a verified lock/unlock; `deadline` (Unix seconds) is when the service stops
   * waiting. Past it nothing may move: resolve `{ ok: false, error: DEADLINE_PASSED }` instead.
   */
  mutate(operation: { locked: boolean; duration?: number }, deadline: number, config: LockConfig | null): Promise<Outcome>;
  /** A new config applied, or none (deleted); under a lockdown its unlock-between window is left out. */
  configure(config: LockConfig | null): void;
  /** A lockdown came into force (device protocol 1.4): shut the bolt now, ending any unlock. Without it, the endpoint sends a lock. */
  lockDown?(): void;
}

export interface LockEndpointOptions {
  id: string;
  secret: string;
  mqttUrl: string;
  topicPrefix?: string;
  /** What the lock says it is (protocol 1.2). */
  device: LockDevice;
  /** Base64 DER root CA for EdDSA tokens (or its anchor, lockTrustAnchor); without it only RS256 tokens can be accepted. */
  trustedRoot?: string | TrustAnchor;
  /** Where used tokens are remembered across restarts; without it, in memory only. */
  replayFile?: string;
  /** Where a lockdown in force is kept across restarts (protocol 1.4); without it, in memory only. */
  lockdownFile?: string;
  /** Where the keypad keeps each code's uses and a lockout across restarts (protocol 1.5); without it, in memory only. */
  keypadFile?: string;
  /** Wait this long before handling each command (a slow lock). Default 0. */
  replyDelayMs?: number;
  /** How long a command without a deadline (protocol 1.1) may take, from its arrival; default: no limit. */
  defaultCommandMs?: number;
  /** Protocol 1.3: where this lock takes signed requests on the LAN, announced in `online` (the SDK's directAccessEndpoints). */
  directAccessEndpoints?: string[];
  /** Where operation reports wait while the service cannot be reached (protocol 1.3); without it, in memory only. */
  outboxFile?: string;
  /**
   * A bolt move no command made waits this long (milliseconds) for the lock to say how it was
   * made (a keypad or a hand, `reportOperation`), so that the report reaches the service before
   * the state and the move is audited once, with its source. For hardware that tells the move
   * before the reason (Z-Wave); default 0.
   */
  operationGraceMs?: number;
  /**
   * A real lock that checks typed codes itself (the bridge's code slots): kept holding the codes
   * that may open now; a config counts as held once it was written (or failed, said in codeErrors).
   */
  keypadMirror?: KeypadMirror;
  /** Unix seconds. */
  now: () => number;
  log: LockLog;
}

type Acted = { ok: true; userId: string; locked: boolean } | { ok: false; error: string; userId?: string };

type Reply = { id: string; ok: true; state: LockState } | { id: string; ok: false; error: string };

/** How long after an operation report the state showing its move may still name it (protocol 1.7), seconds. */
const REPORTED_MOVE_SECONDS = 10;

/** How long closing waits for the broker to take the lock's `online: false`. */
const GOODBYE_TIMEOUT_MS = 2_000;

/**
 * A lock's side of the lock link (docs/device-protocol.md), whatever moves the bolt: presence
 * with a will, retained state, the retained config, door events, and every command checked on the
 * lock (CommandChecker) before its Bolt moves. The simulator and each lock the bridge drives are
 * one of these; the bridge says a lock is offline while its hardware cannot be reached
 * (`setAvailable`).
 */
export class LockEndpoint {
  private client: MqttClient | null = null;
  private config: LockConfig | null = null;
  private readonly checker: CommandChecker;
  private readonly prefix: string;
  private readonly replays: ReplayMemory;
  private available = true;
  private bolt: Bolt | undefined;
  private readonly keypad: Keypad;
  private readonly outbox: OperationOutbox;
  /** Reports handed to the client and not yet acknowledged, by id. */
  private readonly sending = new Set<string>();
  /** While above 0 a state is not published but remembered (a local operation's report goes first). */
  private holds = 0;
  private statePending = false;
  private graceTimer: NodeJS.Timeout | undefined;
  /** Protocol 1.7: the last operation report of a move, named in the state that first shows the move (the service then audits it once). */
  private reportedMove: { id: string; locked: boolean; ts: number } | undefined;
  /** The bolt as last seen by publishState, to tell a move from another change. */
  private lastLocked: boolean | undefined;
  /** Commands and local requests being carried out (their moves need no grace). */
  private acting = 0;
  private readonly lockdown: LockdownGuard;
  /** Configs are applied one after another (a lockdown's check is asynchronous); commands wait for the last one. */
  private configuring: Promise<void> = Promise.resolve();

  constructor(private readonly options: LockEndpointOptions) {
    this.prefix = options.topicPrefix ?? DEFAULT_TOPIC_PREFIX;
    this.replays = options.replayFile === undefined ? new ReplayMemory() : ReplayMemory.open(options.replayFile, options.now());
    // One anchor for the command checker and the keypad: the root is parsed once.
    const anchor = options.trustedRoot === undefined ? undefined : lockTrustAnchor(options.trustedRoot);
    this.checker = new CommandChecker({ lockId: options.id, now: options.now, replays: this.replays, ...(anchor === undefined ? {} : { trustedRoot: anchor }) });
    this.lockdown = new LockdownGuard(this.checker, options.log, options.lockdownFile);
    this.keypad = new Keypad({ lockId: options.id, secret: options.secret, anchor, now: options.now, file: options.keypadFile });
    this.outbox = new OperationOutbox(options.outboxFile ?? null);
  }

  /**
   * A code typed at the keypad (protocol 1.5): checked by the lock alone (src/lock-edge/keypad.ts);
   * a code that opens moves the bolt as an unlock without a duration would. Logged with the code's
   * id, never its digits.
   */
  async enterCode(digits: string): Promise<KeypadEntry> {
    const entry = this.keypad.enter(digits);
    if (!entry.ok) return this.keypadRefusal(entry);
    if (this.bolt === undefined || !this.available) {
      this.options.log('keypad_refused', { reason: 'busy', code: entry.codeId });
      return { ok: false, reason: 'busy', codeId: entry.codeId };
    }
    // Protocol 1.4: under a lockdown a code opens only for one of its responders.
    if (!this.lockdown.mayUnlock('userId' in entry.holder ? entry.holder.userId : '')) {
      this.options.log('keypad_refused', { reason: 'locked_down', code: entry.codeId });
      return { ok: false, reason: 'locked_down', codeId: entry.codeId };
    }
    // The report goes before the state it leads to (protocol 1.3), so the unlock is audited once, as the holder's.
    this.holds += 1;
    this.acting += 1;
    try {
      const outcome = await this.bolt.mutate({ locked: false }, Number.POSITIVE_INFINITY, this.config);
      this.options.log(outcome.ok ? 'keypad_unlock' : 'keypad_refused', { code: entry.codeId, ...('userId' in entry.holder ? { user: entry.holder.userId } : {}), ...(outcome.ok ? {} : { reason: outcome.error }) });
      if (!outcome.ok) return { ok: false, reason: 'busy', codeId: entry.codeId };
      this.queueReport({ source: 'keypad', locked: false, code: entry.codeId });
      return entry;
    } finally {
      this.acting -= 1;
      this.release();
    }
  }

  /** A refused keypad entry: logged and reported by the code's id (never digits); a lockout reaches a real keypad too. */
  private keypadRefusal(entry: KeypadEntry & { ok: false }): KeypadEntry {
    const named = { ...(entry.codeId === undefined ? {} : { code: entry.codeId }), ...(entry.lockoutUntil === undefined ? {} : { lockoutUntil: entry.lockoutUntil }) };
    this.options.log('keypad_refused', { reason: entry.reason, ...named });
    this.queueReport({ source: 'keypad', locked: false, refused: entry.reason, ...named });
    if (entry.lockoutUntil !== undefined) void this.refreshKeypad();
    return entry;
  }

  /**
   * A real lock refused typed digits (`wrong`: a code it does not hold, or, naming its `slot`, one
   * it holds disabled) or locked its keypad out itself (`lockout`, its own limit): a refused entry;
   * wrong codes count towards the keypad's lockout, which disables every code on the real lock
   * until it ends. The lock's own lockout during one already in force only extends it, unreported.
   */
  reportKeypadRefusal(kind: 'wrong' | 'lockout', slot?: number): void {
    const now = this.options.now();
    if (kind === 'lockout') {
      const already = now < this.keypad.lockedOutUntil;
      const entry = this.keypad.lockedOut(now + LOCKOUT_SECONDS);
      if (!already && !entry.ok) this.keypadRefusal(entry);
      return;
    }
    const codeId = slot === undefined ? undefined : this.options.keypadMirror?.codeAt(slot);
    const entry = this.keypad.refused(codeId, (userId) => this.lockdown.mayUnlock(userId));
    if (!entry.ok) this.keypadRefusal(entry);
  }

  /** Brings the real lock's keypad in line with the codes held (a time edge, the lock back); its failures go out in the state. */
  async refreshKeypad(): Promise<void> {
    if (await this.mirrorKeypad()) this.publishState();
  }

  /** Whether the codes the real keypad failed to take changed. */
  private async mirrorKeypad(): Promise<boolean> {
    const mirror = this.options.keypadMirror;
    if (mirror === undefined) return false;
    const before = JSON.stringify(mirror.errors);
    await mirror.update(this.keypad.view((userId) => this.lockdown.mayUnlock(userId)));
    return JSON.stringify(mirror.errors) !== before;
  }

  get id(): string {
    return this.options.id;
  }

  /** Where the lock now takes signed requests on the LAN (protocol 1.3), announced again at once. */
  setDirectAccessEndpoints(endpoints: string[]): void {
    this.options.directAccessEndpoints = endpoints;
    this.publish('online', this.presence(), true);
  }

  /**
   * What the lock's keypad takes, once its hardware said (protocol 1.5 `device.codeDigits`), or
   * that it has none (null: `keypad` leaves `device.capabilities`); announced again at once.
   */
  describeKeypad(codeDigits: { min: number; max: number } | null): void {
    const device = this.options.device;
    this.options.device = codeDigits === null
      ? { kind: device.kind, capabilities: (device.capabilities ?? []).filter((capability) => capability !== 'keypad') }
      : { ...device, codeDigits };
    this.publish('online', this.presence(), true);
  }

  /** Operation reports not yet taken by the broker. */
  get unsentReports(): number {
    return this.outbox.size;
  }

  /**
   * A signed request taken on the LAN (protocol 1.3; the official SDK's LocalUnlockClient): checked
   * exactly as a command from the service (chain, claims, enrolment, windows and schedules, the same
   * replay memory, so a token used on one path is refused on the other), carried out, then reported
   * to the service (`operation`, source `lan`, with the token), at once or once it can be reached.
   */
  async executeLocal(token: string): Promise<LocalOutcome> {
    const now = this.options.now();
    const command: CommandPayload = { id: `lan-${randomUUID()}`, token, operation: tokenOperation(token), deadline: now + (this.options.defaultCommandMs ?? LOCAL_DEADLINE_MS) / 1000 };
    this.holds += 1;
    try {
      const acted = await this.act(command);
      if (!acted.ok) {
        this.options.log('lan_refused', { ...(acted.userId === undefined ? {} : { user: acted.userId }), error: acted.error });
        return { ok: false, error: acted.error };
      }
      this.options.log('lan_operation', { user: acted.userId, locked: acted.locked });
      this.queueReport({ source: 'lan', locked: acted.locked, token });
      return acted;
    } finally {
      this.release();
    }
  }

  /** The lock moved its bolt at its keypad or by hand (protocol 1.3): reported to the service, before the state it leads to. */
  reportOperation(operation: { source: Exclude<OperationSource, 'lan'>; locked: boolean; slot?: number }): void {
    // A real keypad names the slot: the code in it is reported by id (1.5) and its use counted, so a code used up leaves the lock.
    const codeId = operation.source === 'keypad' && operation.slot !== undefined ? this.options.keypadMirror?.codeAt(operation.slot) : undefined;
    const used = codeId === undefined || operation.locked ? null : this.keypad.used(codeId);
    if (used !== null) this.options.log('keypad_unlock', { code: used.codeId, ...('userId' in used.holder ? { user: used.holder.userId } : {}) });
    this.queueReport(used === null ? operation : { ...operation, code: used.codeId });
    if (used !== null) void this.refreshKeypad();
    if (this.graceTimer !== undefined) {
      clearTimeout(this.graceTimer);
      this.graceTimer = undefined;
      this.holds += 1;
      this.release();
    }
  }

  /** The bolt commands go to; set before connecting. A lockdown kept from before a restart shuts it at once. */
  attach(bolt: Bolt): void {
    this.bolt = bolt;
    if (this.lockdown.active !== null) this.driveLocked();
  }

  /** The lockdown in force on this lock (protocol 1.4), or null. */
  get lockdownId(): string | null {
    return this.lockdown.active?.id ?? null;
  }

  get connected(): boolean {
    return this.client?.connected === true;
  }

  get configVersion(): number | null {
    return this.config?.version ?? null;
  }

  get lockConfig(): LockConfig | null {
    return this.config;
  }

  /**
   * Connects, subscribes, then announces itself with its state. `waitForBroker`: resolve once
   * announced, reject when the first attempt fails; otherwise return at once and keep trying.
   */
  async connect(waitForBroker = true): Promise<void> {
    if (this.client !== null) return;
    const { id, secret } = this.options;
    const options = {
      clientId: id,
      username: id,
      password: secret,
      clean: true,
      reconnectPeriod: 1_000,
      // A broker in a reconnect storm answers late; giving up sooner only makes another login
      // (docs/device-protocol.md, "Connecting"). mqtt.js's own default.
      connectTimeout: 30_000,
      will: { topic: this.topic('online'), payload: Buffer.from('{"online":false}'), qos: 1 as const, retain: true },
    };
    const client = waitForBroker ? await connectMqtt(this.options.mqttUrl, options) : startMqtt(this.options.mqttUrl, options);
    this.client = client;
    reconnectWithBackoff(client);
    client.on('message', (topic, payload) => this.receive(topic, payload));
    client.on('error', (err) => this.options.log('mqtt_error', { message: err.message }));
    client.on('offline', () => this.options.log('disconnected'));
    // Every (re)connect: subscribe (again, for a first connection made in the background), then announce.
    client.on('connect', () => void this.subscribeAndAnnounce(client));
    if (waitForBroker) await this.subscribeAndAnnounce(client);
  }

  /** Whether the hardware can be reached: the lock is online to the service only while it can. */
  setAvailable(available: boolean): void {
    if (this.available === available) return;
    this.available = available;
    // The bolt as first seen again is no move anyone made.
    this.lastLocked = undefined;
    this.options.log(available ? 'reachable' : 'unreachable');
    this.publish('online', this.presence(), true);
    if (available) this.publishState();
    // Slot writes that failed while the lock was away are made now.
    if (available) void this.refreshKeypad();
  }

  /**
   * The door sensor changed: its event (the new state is published next: docs/device-protocol.md,
   * in that order). A door opening with the bolt thrown is `forced` (protocol 1.4).
   */
  publishDoorEvent(open: boolean): void {
    // A bolt move held for its reason goes first: the service reads a door opening against the bolt it holds.
    if (this.graceTimer !== undefined) {
      clearTimeout(this.graceTimer);
      this.graceTimer = undefined;
      this.holds += 1;
      this.release();
    }
    const forced = open ? { forced: this.bolt?.state.locked === true } : {};
    this.publish('event', { type: open ? 'DOOR_OPEN' : 'DOOR_CLOSE', ts: this.options.now(), ...forced }, false);
  }

  /**
   * The state, with the config version held (protocol 1.1: the service re-sends a newer config).
   * Held back while a local operation's report is on its way, and (operationGraceMs) when the
   * bolt moved with no command, until the lock says how or the grace ends.
   */
  publishState(): void {
    if (this.bolt === undefined) return;
    const { locked } = this.bolt.state;
    const moved = this.lastLocked !== undefined && this.lastLocked !== locked;
    this.lastLocked = locked;
    if (this.holds > 0 || this.graceTimer !== undefined) {
      this.statePending = true;
      return;
    }
    const grace = this.options.operationGraceMs ?? 0;
    if (moved && this.acting === 0 && grace > 0 && this.available) {
      this.statePending = true;
      this.graceTimer = setTimeout(() => {
        this.graceTimer = undefined;
        this.holds += 1;
        this.release();
      }, grace);
      return;
    }
    this.sendState();
  }

  private sendState(): void {
    if (this.bolt === undefined) return;
    const move = this.reportedMove;
    // Only the state that shows the reported move, soon after it: a later move is no report's.
    const shows = move !== undefined && move.locked === this.bolt.state.locked && this.options.now() - move.ts <= REPORTED_MOVE_SECONDS;
    // Offline, the state is not sent: the one sent on reconnect still names the move.
    if (this.publish('state', { ...this.bolt.state, configVersion: this.configVersion, ...this.codeReport(), lockdown: this.lockdownId, ...(shows ? { operation: move.id } : {}) }, true)) this.reportedMove = undefined;
  }

  /** Protocol 1.5: while the config held carries codes, the ones the lock refused (even none). */
  private codeReport(): { codeErrors?: Array<{ code: string; error: string }> } {
    if (this.config?.codes === undefined) return {};
    const refused = this.keypad.codeErrors;
    const unwritten = (this.options.keypadMirror?.errors ?? []).filter((e) => !refused.some((r) => r.code === e.code));
    return { codeErrors: [...refused, ...unwritten] };
  }

  /** Ends a hold; the state remembered meanwhile goes out once none is left. */
  private release(): void {
    this.holds -= 1;
    if (this.holds > 0 || this.graceTimer !== undefined || !this.statePending) return;
    this.statePending = false;
    this.sendState();
  }

  private queueReport(operation: { source: OperationSource; locked: boolean; slot?: number; token?: string; code?: string; refused?: string; lockoutUntil?: number }): void {
    const report: OperationReport = { id: randomUUID(), ts: this.options.now(), ...operation };
    if (operation.refused === undefined) this.reportedMove = { id: report.id, locked: report.locked, ts: report.ts };
    const dropped = this.outbox.add(report);
    if (dropped !== undefined) this.options.log('operation_report_dropped', { id: dropped.id, source: dropped.source, ts: dropped.ts });
    this.options.log('operation_report', { id: report.id, source: report.source, locked: report.locked, ...(report.slot === undefined ? {} : { slot: report.slot }) });
    this.flushReports();
  }

  /** Hands every report not yet in flight to the client, in order; each leaves the outbox once the broker has it. */
  private flushReports(): void {
    const client = this.client;
    if (client === null || !client.connected) return;
    for (const report of this.outbox.pending()) {
      if (this.sending.has(report.id)) continue;
      this.sending.add(report.id);
      client.publishAsync(this.topic('operation'), JSON.stringify(report), { qos: 1 }).then(
        () => this.outbox.sent(report.id),
        (err: unknown) => this.options.log('mqtt_error', { message: err instanceof Error ? err.message : String(err) }),
      ).finally(() => this.sending.delete(report.id));
    }
  }

  /** Drops the TCP connection without DISCONNECT, like a power cut: the broker publishes the will. */
  async powerCut(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client !== null) await client.endAsync(true);
    this.options.log('offline');
  }

  /** Orderly shutdown: reports itself offline, then disconnects cleanly. */
  async close(): Promise<void> {
    clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.replays.close();
    const client = this.client;
    this.client = null;
    if (client === null) return;
    // Say goodbye if the broker takes it within a moment; a broker that stopped answering must not hold the shutdown.
    const goodbye = client.connected ? client.publishAsync(this.topic('online'), '{"online":false}', { qos: 1, retain: true }).then(() => true, () => false) : Promise.resolve(false);
    const said = await Promise.race([goodbye, sleep(GOODBYE_TIMEOUT_MS, false, { ref: false })]);
    await client.endAsync(!said);
  }

  private presence(): object {
    if (!this.available) return { online: false };
    const { directAccessEndpoints } = this.options;
    return { online: true, configVersion: this.configVersion, device: this.options.device, ...(directAccessEndpoints === undefined ? {} : { directAccessEndpoints }) };
  }

  private async subscribeAndAnnounce(client: MqttClient): Promise<void> {
    try {
      await client.subscribeAsync([this.topic('command'), this.topic('config')], { qos: 1 });
    } catch (err) {
      this.options.log('mqtt_error', { message: err instanceof Error ? err.message : String(err) });
      return;
    }
    this.publish('online', this.presence(), true);
    // What happened while the service could not be reached goes before the state it led to.
    this.sending.clear();
    this.flushReports();
    if (this.holds === 0 && this.graceTimer === undefined) this.sendState();
    this.options.log('connected', { url: withoutCredentials(this.options.mqttUrl), available: this.available });
  }

  private topic(kind: TopicKind): string {
    return lockTopic(this.prefix, this.options.id, kind);
  }

  /** False when offline (not sent): presence and state are announced again on reconnect. */
  private publish(kind: TopicKind, body: object, retain: boolean, topic = this.topic(kind)): boolean {
    if (this.client === null || !this.client.connected) return false;
    this.client.publish(topic, JSON.stringify(body), { qos: 1, retain });
    return true;
  }

  private receive(topic: string, payload: Buffer): void {
    if (topic === this.topic('config')) this.applyConfig(payload);
    else if (topic === this.topic('command')) {
      this.handleCommand(payload, this.options.now()).catch((err: unknown) => this.options.log('error', { message: err instanceof Error ? err.message : String(err) }));
    }
  }

  private applyConfig(payload: Buffer): void {
    this.configuring = this.configuring.then(() => this.applyConfigNow(payload)).catch((err: unknown) => this.options.log('error', { message: err instanceof Error ? err.message : String(err) }));
  }

  /** The config as the bolt gets it: no unlock-between window under a lockdown. */
  private boltConfig(): LockConfig | null {
    return this.config !== null && this.lockdown.active !== null ? { ...this.config, unlockBetween: null } : this.config;
  }

  private driveLocked(): void {
    const bolt = this.bolt;
    if (bolt === undefined) return;
    bolt.configure(this.boltConfig());
    if (bolt.lockDown) bolt.lockDown();
    else void bolt.mutate({ locked: true }, Number.POSITIVE_INFINITY, this.boltConfig()).catch((err: unknown) => this.options.log('error', { message: err instanceof Error ? err.message : String(err) }));
  }

  private async applyConfigNow(payload: Buffer): Promise<void> {
    if (payload.length === 0) {
      this.config = null;
      this.bolt?.configure(null);
      await this.keypad.configure(null);
      // A lock released from its owner holds no code on its real keypad either.
      void this.refreshKeypad();
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
    const lockdown = await this.lockdown.apply(config);
    if (lockdown === 'declared') this.driveLocked();
    else this.bolt?.configure(this.boltConfig());
    // The keypad's codes are checked (signatures) before the state says this version is held.
    try {
      await this.keypad.configure(config);
    } catch (err) {
      this.options.log('error', { message: err instanceof Error ? err.message : String(err) });
      return;
    }
    if (this.config !== config) return;
    // A real keypad takes the codes before the state says this version is held.
    const unwritten = await this.mirrorKeypad();
    if (this.config !== config) return;
    if (changed || lockdown !== null || unwritten) this.publishState();
    this.options.log('config', { version: config.version, users: config.users.length, codes: config.codes?.length ?? 0, codesRefused: this.keypad.codeErrors.length, unlockDuration: config.unlockDuration, unlockBetween: config.unlockBetween !== null, lockdown: this.lockdownId });
  }

  private async handleCommand(payload: Buffer, arrived: number): Promise<void> {
    const decoded = decodeCommand(payload);
    if (!decoded.ok) {
      const { id, replyTo } = commandIdOf(payload);
      this.options.log('command_invalid', { id, reason: decoded.reason });
      if (id !== null) this.reply({ id, ok: false, error: `bad_command: ${decoded.reason}` }, replyTo);
      return;
    }
    const { defaultCommandMs, replyDelayMs = 0 } = this.options;
    // A command of protocol 1.1 names no deadline: the bridge gives it the service's reply timeout.
    const command = decoded.value.deadline === undefined && defaultCommandMs !== undefined ? { ...decoded.value, deadline: arrived + defaultCommandMs / 1000 } : decoded.value;
    if (replyDelayMs > 0) await sleep(replyDelayMs);
    await this.configuring;
    this.reply(await this.execute(command), command.replyTo);
  }

  private async execute(command: CommandPayload): Promise<Reply> {
    const { id } = command;
    const acted = await this.act(command);
    if (!acted.ok) return this.refused(id, acted.error, acted.userId);
    this.options.log('command', { id, user: acted.userId, locked: acted.locked });
    return { id, ok: true, state: { ...this.bolt!.state, configVersion: this.configVersion } };
  }

  /** A command checked on the lock and carried out on its bolt, whichever path it came by. */
  private async act(command: CommandPayload): Promise<Acted> {
    this.acting += 1;
    try {
      const checked = await this.checker.check(command, this.config);
      if (!checked.ok) return checked;
      const { operation, userId } = checked;
      if (operation.type !== 'MUTATE_LOCK') return { ok: false, error: `unsupported_operation: ${operation.type} is delivered through config`, userId };
      // Protocol 1.4: under a lockdown only its responders unlock, whatever the service sent (or on the LAN).
      if (!operation.locked && !this.lockdown.mayUnlock(userId)) return { ok: false, error: 'locked_down: the lock is locked down; only its responders may unlock', userId };
      // Checked again as the bolt is about to move: the check itself may have taken a while.
      if (isPastDeadline(command, this.options.now())) return { ok: false, error: DEADLINE_PASSED, userId };
      if (this.bolt === undefined || !this.available) return { ok: false, error: 'busy: the lock cannot be reached', userId };
      const outcome = await this.bolt.mutate(operation, command.deadline ?? Number.POSITIVE_INFINITY, this.config);
      if (!outcome.ok) return { ...outcome, userId };
      return { ok: true, userId, locked: operation.locked };
    } finally {
      this.acting -= 1;
    }
  }

  private refused(id: string, error: string, userId?: string): Reply {
    this.options.log('command_refused', { id, ...(userId === undefined ? {} : { user: userId }), error });
    return { id, ok: false, error };
  }

  /** On `reply`, or (protocol 1.6) on `reply/{replyTo}` when the command names the instance that waits for it. */
  private reply(reply: Reply, replyTo?: string): void {
    this.publish('reply', reply, false, replyTo === undefined ? this.topic('reply') : routedReplyTopic(this.prefix, this.options.id, replyTo));
    this.options.log('reply', reply.ok ? { id: reply.id, ok: true } : { id: reply.id, ok: false, error: reply.error });
  }
}

/** The operation a token carries, as the command beside it would (the token is still checked as a whole). */
function tokenOperation(token: string): CommandPayload['operation'] {
  try {
    const operation = decodeOperationToken(token).payload.operation;
    if (typeof operation === 'object' && operation !== null && typeof (operation as { type?: unknown }).type === 'string') return operation as CommandPayload['operation'];
  } catch {
    // refused by the check, with its reason
  }
  return { type: 'unknown' };
}

/** The `id` (and a valid `replyTo`) of a command too malformed to decode, so the service still gets an answer. */
function commandIdOf(payload: Buffer): { id: string | null; replyTo?: string } {
  try {
    const { id, replyTo } = JSON.parse(payload.toString('utf8')) as { id?: unknown; replyTo?: unknown };
    const route = typeof replyTo === 'string' && isValidReplyRoute(replyTo) ? { replyTo } : {};
    return { id: typeof id === 'string' && id.length > 0 && id.length <= 64 ? id : null, ...route };
  } catch {
    return { id: null };
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
