import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { IConnackPacket } from 'mqtt';
import {
  decodeEvent, decodeOnline, decodeOperationReport, decodeReply, decodeState, replyState, safeReason,
  type Decoded, type LockConfig, type LockDevice, type LockEvent, type LockState, type OnlinePayload, type OperationReport, type ReplyPayload,
} from '../device-protocol/payloads.js';
import { allLocksTopic, DEFAULT_TOPIC_PREFIX, isValidLockId, lockTopic, parseLockTopic } from '../device-protocol/topics.js';
import { errors } from '../errors/catalogue.js';
import type { LocalBrokerClient } from '../mqtt/broker.js';
import { connectMqtt } from '../mqtt/connection.js';
import { isValidTopicPrefix } from '../mqtt/topic-names.js';
import { PendingCommands } from './pending-commands.js';
import { roleOf, subscribeShared, sweepRetainedStates, type DeliveryRole, type SharedSubscriptionOptions } from './shared-subscriptions.js';
import type { Delivery, LinkTransport } from './transport.js';
import { LocalTransport } from './transport-local.js';
import { MqttTransport } from './transport-mqtt.js';

/**
 * The service's side of the lock link (docs/device-protocol.md).
 *
 * Several service instances may share one external broker. With shared subscriptions (`shared`,
 * ./shared-subscriptions.ts) each lock report reaches one instance, which records it, while
 * every instance hears every `online` to know who is online; a command names its instance
 * (`replyTo`, protocol 1.6) and a 1.6 lock replies to that instance alone. Without them every
 * instance hears and records every report (the writers are conditional, so once in effect). A
 * lock before 1.6 replies on `{prefix}/{lockId}/reply`, which reaches every instance either way,
 * and only the instance holding that random command id in its pending table acts on it.
 *
 * Connecting (the composition root) and listening (the lock link's subscribers, started beside
 * the routes) are apart: the handlers that record reports need the finished context.
 */

/** Called for each valid inbound message; a throw or rejection is logged, never fatal. */
export interface LockLinkHandlers {
  /**
   * On every change of a lock's presence as this instance knows it (first sight included); with
   * shared subscriptions, on every presence report this instance is the one to record.
   */
  onPresence(lockId: string, online: boolean): void | Promise<void>;
  /** On every state report (retained ones replayed on (re)subscribe included). */
  onState(lockId: string, state: LockState): void | Promise<void>;
  onEvent(lockId: string, event: LockEvent): void | Promise<void>;
  /** What the lock says it is (protocol 1.2), when an `online: true` says it differently from before (first sight included). */
  onDevice?(lockId: string, device: LockDevice): void | Promise<void>;
  /** Protocol 1.3: where the lock takes signed requests on its LAN, when an `online: true` says it differently from before (first sight included; [] when it names none). */
  onDirectAccess?(lockId: string, endpoints: string[]): void | Promise<void>;
  /** Protocol 1.3: what the lock did on its own (LAN, keypad, by hand), possibly long after. */
  onOperation?(lockId: string, report: OperationReport): void | Promise<void>;
  /**
   * The config version a lock says it holds: on each `online: true` (null when it names none, as
   * old firmware does) and on each state report that names one (docs/device-protocol.md §3).
   */
  onConfigVersion?(lockId: string, version: number | null): void | Promise<void>;
  /** After the link reconnects to the broker (not on the first connection): the broker may have forgotten retained configs. */
  onReconnected?(): void | Promise<void>;
  /** On a reply `ok` that no command of this instance waits for (late, or another instance's). */
  onUnclaimedReply?(lockId: string, commandId: string, timedOutHere: boolean): void | Promise<void>;
}

export interface LockLinkOptions {
  /**
   * mqtt:// or mqtts:// of an external broker, or the embedded broker's own publish and subscribe
   * (EmbeddedBroker.local: no MQTT packets on the service's side).
   */
  broker: string | LocalBrokerClient;
  username?: string;
  password?: string;
  /** Extra CA (PEM) to trust for mqtts://, e.g. a self-signed broker certificate. */
  ca?: string | Buffer;
  topicPrefix?: string;
  /** MQTT 3.1.1 (4, the default; what the embedded broker speaks) or 5 (always, with `shared`). */
  protocolVersion?: 4 | 5;
  /** An external broker shared by several instances: each report to one of them (./shared-subscriptions.ts). */
  shared?: SharedSubscriptionOptions;
  replyTimeoutMs: number;
  logger: Logger;
  /** The service's clock, Unix seconds (a command's deadline is read on it). Default: the system clock. */
  now?: () => number;
}

export interface CommandResult {
  /** The state the lock reported with its reply, when it sent one. */
  state?: LockState;
}

export interface LockLink {
  /** True when this instance is connected to the broker and the lock's last `online` was true. */
  isOnline(lockId: string): boolean;
  /**
   * Sends an already authorised operation with the user's token to the lock and waits for its
   * reply. Throws errors.lockOffline() (503) at once when the lock is not online, errors.lockTimeout()
   * (504) when no reply comes within replyTimeoutMs, errors.lockRefused(reason) (409) when the lock
   * answers `ok: false`.
   */
  sendCommand(lockId: string, token: string, operation: Record<string, unknown>, commandId?: string): Promise<CommandResult>;
  /** Publishes the lock's configuration, retained, QoS 1; resolves once the broker has it. */
  publishConfig(lockId: string, config: LockConfig): Promise<void>;
  /**
   * Subscribes to every lock's reports and replies and hands each valid report to `handlers`;
   * resolves once subscribed (retained reports follow). Until then no lock is online. Once only.
   */
  listen(handlers: LockLinkHandlers): Promise<void>;
  /**
   * The lock was decommissioned (src/locks/decommission.ts): from now on this instance neither
   * hears it (every message of it is dropped, a retained one replayed included) nor sends it a
   * command (503, as offline; commands waiting for its reply fail so). Its retained config is
   * still published: the last one, with no users, replaces what the broker kept.
   */
  retire(lockId: string): void;
  /** Whether `retire(lockId)` was called. */
  isRetired(lockId: string): boolean;
  /** Whether this instance is connected to the broker now, and how often it has reconnected (readiness, metrics). */
  brokerStatus(): { connected: boolean; reconnects: number; locksOnline: number };
  close(): Promise<void>;
}

type Outcome = { value: CommandResult } | { error: Error };

function outcomeOf(reply: ReplyPayload, logger: Logger, lockId: string): Outcome {
  // Protocol 1.2: a lock that gave the command up at its deadline did nothing, as if it had not answered in time.
  if (!reply.ok) return { error: reply.error.startsWith('deadline_passed') ? errors.lockTimeout() : errors.lockRefused(safeReason(reply.error)) };
  const { state, invalid } = replyState(reply.state);
  // The outcome stands on `id` and `ok`; a malformed state only loses the state (its report follows).
  if (invalid !== undefined) logger.warn({ lockId, commandId: reply.id, reason: invalid }, 'malformed state in a lock reply ignored');
  return { value: state === undefined ? {} : { state } };
}

class TransportLockLink implements LockLink {
  private readonly presence = new Map<string, boolean>();
  /** What each lock last said it is (protocol 1.2), as JSON, so only a change is handed on. */
  private readonly devices = new Map<string, string>();
  /** The LAN addresses each lock last announced (protocol 1.3), as JSON, so only a change is handed on. */
  private readonly directAccess = new Map<string, string>();
  private readonly pending = new PendingCommands<CommandResult>();
  private readonly retired = new Set<string>();
  private handlers: LockLinkHandlers | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly transport: LinkTransport,
    private readonly prefix: string,
    private readonly options: LockLinkOptions,
  ) {
    transport.attach({ message: (topic, payload, delivery) => this.receive(topic, payload, delivery), reconnected: () => this.reconnected() });
  }

  brokerStatus(): { connected: boolean; reconnects: number; locksOnline: number } {
    const connected = this.closing === undefined && this.transport.connected();
    let locksOnline = 0;
    if (connected) for (const online of this.presence.values()) if (online) locksOnline += 1;
    return { connected, reconnects: this.transport.reconnects(), locksOnline };
  }

  isOnline(lockId: string): boolean {
    return this.closing === undefined && this.transport.connected() && this.presence.get(lockId) === true;
  }

  retire(lockId: string): void {
    this.retired.add(lockId);
    this.presence.delete(lockId);
    this.pending.rejectLock(lockId, () => errors.lockOffline());
  }

  isRetired(lockId: string): boolean {
    return this.retired.has(lockId);
  }

  sendCommand(lockId: string, token: string, operation: Record<string, unknown>, id: string = randomUUID()): Promise<CommandResult> {
    // Presence is only ever recorded for valid ids, so this also keeps odd ids out of topics.
    if (!this.isOnline(lockId)) return Promise.reject(errors.lockOffline());
    const { replyTimeoutMs, now = () => Date.now() / 1000 } = this.options;
    const reply = this.pending.wait(id, lockId, replyTimeoutMs, errors.lockTimeout);
    // Protocol 1.2: past the moment its request answers 504 the lock must drop the command, never act on it late.
    const replyTo = this.options.shared?.replyTo;
    const payload = JSON.stringify({ id, token, operation, deadline: now() + replyTimeoutMs / 1000, ...(replyTo === undefined ? {} : { replyTo }) });
    this.transport.publish(lockTopic(this.prefix, lockId, 'command'), payload, false, (err) => {
      if (err) this.pending.settle(id, lockId, { error: errors.lockOffline() });
    });
    return reply;
  }

  publishConfig(lockId: string, config: LockConfig): Promise<void> {
    return new Promise((resolve, reject) => {
      this.transport.publish(this.configTopic(lockId), JSON.stringify(config), true, (err) => (err ? reject(err) : resolve()));
    });
  }

  private configTopic(lockId: string): string {
    // An id with `/` or a wildcard would address some other topic; ids come from our database.
    if (!isValidLockId(lockId)) throw new TypeError('invalid lock id');
    return lockTopic(this.prefix, lockId, 'config');
  }

  async listen(handlers: LockLinkHandlers): Promise<void> {
    if (this.handlers !== undefined) throw new Error('the lock link is already listening');
    this.handlers = handlers;
    const { shared } = this.options;
    try {
      if (shared) await subscribeShared(this.transport, this.prefix, shared);
      else await this.transport.subscribe((['online', 'state', 'event', 'reply', 'operation'] as const).map((kind) => allLocksTopic(this.prefix, kind)));
    } catch (err) {
      await this.transport.end(true);
      const what = shared ? `shared subscriptions ($share/${shared.group}/${this.prefix}/+/…, MQTT 5)` : `subscriptions ${this.prefix}/+/…`;
      throw new Error(`MQTT broker refused the ${what}; check the service user's ACL${shared ? ' and that the broker supports shared subscriptions (else MQTT_SHARED_SUBSCRIPTIONS=false)' : ''}`, { cause: err });
    }
    this.options.logger.info({ prefix: this.prefix }, 'lock link listening');
  }

  /** The transport reconnected (and resubscribed). */
  private reconnected(): void {
    const handlers = this.handlers;
    if (handlers === undefined || this.closing !== undefined) return;
    // States changed while cut off reached the other instances, or nobody: read the retained ones again.
    if (this.options.shared) sweepRetainedStates(this.transport, this.prefix).catch((err: unknown) => this.options.logger.warn({ err }, 'reading the retained lock states again failed'));
    if (handlers.onReconnected) this.invoke('onReconnected', '*', () => handlers.onReconnected?.());
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.pending.rejectAll(() => errors.lockOffline());
      await this.transport.end();
    })();
    return this.closing;
  }

  /** Entry point of every inbound message. */
  private receive(topic: string, payload: Buffer, delivery?: Delivery): void {
    const parsed = parseLockTopic(this.prefix, topic);
    const handlers = this.handlers;
    if (parsed === null || handlers === undefined) return;
    const { lockId, kind } = parsed;
    if (this.retired.has(lockId)) return;
    if (kind === 'reply') return this.ifValid(lockId, kind, decodeReply(payload), (reply) => this.receiveReply(handlers, lockId, reply));
    const role = roleOf(this.options.shared !== undefined, delivery);
    if (kind === 'online') return this.receivePresence(handlers, lockId, payload, role);
    if (!role.record) return;
    switch (kind) {
      case 'state': return this.receiveState(handlers, lockId, payload);
      case 'event': return this.ifValid(lockId, kind, decodeEvent(payload), (event) => this.invoke('onEvent', lockId, () => handlers.onEvent(lockId, event)));
      case 'operation': return this.ifValid(lockId, kind, decodeOperationReport(payload), (report) => this.invoke('onOperation', lockId, () => handlers.onOperation?.(lockId, report)));
      default: return; // command/config: our own publications, not subscribed
    }
  }

  private receivePresence(handlers: LockLinkHandlers, lockId: string, payload: Buffer, role: DeliveryRole): void {
    // An empty payload is a deleted retained message: presence unknown, which counts as offline.
    const decoded: Decoded<OnlinePayload> = payload.length === 0 ? { ok: true, value: { online: false } } : decodeOnline(payload);
    this.ifValid(lockId, 'online', decoded, ({ online, configVersion, device, directAccessEndpoints }) => {
      const changed = this.presence.get(lockId) !== online;
      if (role.watch) this.presence.set(lockId, online);
      if (!role.record) return;
      // Shared: what this instance last heard of the lock says nothing of what the others recorded since.
      const always = this.options.shared !== undefined;
      if (online && device !== undefined) this.receiveChange(this.devices, device, always, handlers.onDevice && (() => handlers.onDevice?.(lockId, device)), 'onDevice', lockId);
      if (online) this.receiveChange(this.directAccess, directAccessEndpoints ?? [], always, handlers.onDirectAccess && (() => handlers.onDirectAccess?.(lockId, directAccessEndpoints ?? [])), 'onDirectAccess', lockId);
      if (online && handlers.onConfigVersion) this.invoke('onConfigVersion', lockId, () => handlers.onConfigVersion?.(lockId, configVersion ?? null));
      if (changed || always) this.invoke('onPresence', lockId, () => handlers.onPresence(lockId, online));
    });
  }

  /** Hands on what a lock says it is or where it takes LAN requests: only a change, unless `always`. */
  private receiveChange(last: Map<string, string>, value: unknown, always: boolean, call: (() => void | Promise<void>) | undefined, handler: string, lockId: string): void {
    const said = JSON.stringify(value);
    if ((!always && last.get(lockId) === said) || call === undefined) return;
    if (!always) last.set(lockId, said);
    this.invoke(handler, lockId, call);
  }

  private receiveState(handlers: LockLinkHandlers, lockId: string, payload: Buffer): void {
    if (payload.length === 0) return;
    this.ifValid(lockId, 'state', decodeState(payload), (state) => {
      if (typeof state.configVersion === 'number' && handlers.onConfigVersion) {
        const version = state.configVersion;
        this.invoke('onConfigVersion', lockId, () => handlers.onConfigVersion?.(lockId, version));
      }
      this.invoke('onState', lockId, () => handlers.onState(lockId, state));
    });
  }

  private receiveReply(handlers: LockLinkHandlers, lockId: string, reply: ReplyPayload): void {
    if (this.pending.settle(reply.id, lockId, outcomeOf(reply, this.options.logger, lockId))) return;
    this.options.logger.info({ lockId, commandId: reply.id }, 'lock reply for no pending command (late, duplicate or another instance\'s)');
    const timedOutHere = this.pending.timedOutHere(reply.id);
    if (reply.ok && handlers.onUnclaimedReply) this.invoke('onUnclaimedReply', lockId, () => handlers.onUnclaimedReply?.(lockId, reply.id, timedOutHere));
  }

  private ifValid<T>(lockId: string, kind: string, decoded: Decoded<T>, use: (value: T) => void): void {
    if (decoded.ok) use(decoded.value);
    else this.options.logger.warn({ lockId, kind, reason: decoded.reason }, 'invalid lock message ignored');
  }

  private invoke(handler: string, lockId: string, call: () => void | Promise<void>): void {
    const fail = (err: unknown): void => this.options.logger.error({ err, handler, lockId }, 'lock link handler failed');
    try {
      const result = call();
      if (result instanceof Promise) result.catch(fail);
    } catch (err) {
      fail(err);
    }
  }
}

/** Connects to the broker (external) or attaches to it (embedded, same process). */
async function openTransport(options: LockLinkOptions): Promise<LinkTransport> {
  const { broker } = options;
  if (typeof broker === 'object') {
    if (options.shared) throw new Error('shared subscriptions need an external broker');
    return new LocalTransport(broker);
  }
  const client = await connectMqtt(broker, {
    clientId: `latchkey-service-${randomUUID()}`,
    clean: true,
    // Shared subscriptions are told apart by subscription identifiers, an MQTT 5 feature.
    protocolVersion: options.shared ? 5 : options.protocolVersion ?? 4,
    ...(options.username === undefined ? {} : { username: options.username }),
    ...(options.password === undefined ? {} : { password: options.password }),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  }).catch((err: unknown) => {
    // CONNACK 1 (MQTT 3.1.1) or 0x84 (MQTT 5): the broker does not speak MQTT 5.
    const code = (err as { code?: unknown }).code;
    throw options.shared && (code === 1 || code === 0x84) ? new Error(`the MQTT broker does not speak MQTT 5, ${WITHOUT_SHARED}`, { cause: err }) : err;
  });
  // A broker may say so when it connects (MQTT 5 CONNACK, Shared Subscription Available 0) rather than refuse the subscriptions.
  // mqtt.js keeps the CONNACK it got (its field is private in its types, public at run time).
  const connack = (client as unknown as { connackPacket?: IConnackPacket }).connackPacket;
  if (options.shared && connack?.properties?.sharedSubscriptionAvailable === false) {
    await client.endAsync(true);
    throw new Error(`the MQTT broker has no shared subscriptions, ${WITHOUT_SHARED}`);
  }
  return new MqttTransport(client, options.logger);
}

/** What to do with a broker without MQTT 5 shared subscriptions: said when the service refuses to start on one (rather than lose reports). */
const WITHOUT_SHARED = 'which each lock report going to one instance needs (MQTT_SHARED_SUBSCRIPTIONS=true, the default with MQTT_URL): use a broker that has them (Mosquitto 2, EMQX, HiveMQ), or set MQTT_SHARED_SUBSCRIPTIONS=false (every instance then hears and records every report)';

/** Connects to the broker; the link hears no lock until `listen`. */
export async function connectLockLink(options: LockLinkOptions): Promise<LockLink> {
  const prefix = options.topicPrefix ?? DEFAULT_TOPIC_PREFIX;
  if (!isValidTopicPrefix(prefix)) throw new Error(`invalid MQTT topic prefix "${prefix}"`);
  const link = new TransportLockLink(await openTransport(options), prefix, options);
  options.logger.info({ prefix }, 'lock link connected');
  return link;
}
