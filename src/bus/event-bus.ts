import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export type BusHandler = (message: unknown) => void;

/**
 * Publish/subscribe between the parts of the service, and between instances when Redis is
 * configured. Messages are JSON values; delivery is at most once (consumers that need every
 * message, such as event streams, replay from the database by sequence number).
 */
export interface EventBus {
  /**
   * Resolves once the message is handed on: with Redis, once Redis has answered the PUBLISH (it
   * has then queued the message for every subscribed instance, and sends it to them in the same
   * turn of its event loop as this answer).
   */
  publish(channel: string, message: unknown): Promise<void>;
  /** Hands the message to this instance's own subscribers only (synchronously): a wake-up the other instances need not hear. */
  publishHere(channel: string, message: unknown): void;
  subscribe(channel: string, handler: BusHandler): () => void;
  /**
   * Whether messages from other instances reach this one now, and how often the link to them was
   * re-established. While it is down, whatever this instance holds on the strength of "a change
   * would be announced" (cached sessions) cannot be trusted.
   */
  status(): BusStatus;
  /** Calls `listener` with each change of `status().connected`. */
  onConnectionChange(listener: (connected: boolean) => void): void;
  close(): Promise<void>;
}

export interface BusStatus {
  connected: boolean;
  reconnects: number;
}

export function createInProcessBus(): EventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    async publish(channel, message) {
      emitter.emit(channel, message);
    },
    publishHere(channel, message) {
      emitter.emit(channel, message);
    },
    subscribe(channel, handler) {
      emitter.on(channel, handler);
      return () => emitter.off(channel, handler);
    },
    // One process: nothing to lose touch with.
    status: () => ({ connected: true, reconnects: 0 }),
    onConnectionChange: () => undefined,
    async close() {
      emitter.removeAllListeners();
    },
  };
}

/** How long a publish waits for Redis before it is delivered on this instance only. */
const PUBLISH_TIMEOUT_MS = 2000;

/** Redis pub/sub: one subscriber connection per instance, fanned out locally. */
export function createRedisBus(url: string, logger: Logger, prefix = 'latchkey:bus:'): EventBus {
  // Publishers wait for Redis's answer (a logout answers once every instance can hear it): a
  // Redis that stops answering without closing the connection must not hold them longer than this.
  const publisher = new Redis(url, { maxRetriesPerRequest: 2, commandTimeout: PUBLISH_TIMEOUT_MS });
  // No ready check: its INFO can race our first SUBSCRIBE and be refused in subscriber mode (ioredis #2037).
  const subscriber = new Redis(url, { enableReadyCheck: false, autoResubscribe: false });
  for (const connection of [publisher, subscriber]) connection.on('error', (err: Error) => logger.warn({ err }, 'bus connection error'));
  const local = createInProcessBus();
  const counts = new Map<string, number>();
  const link = subscriberLink(subscriber, () => [...counts].filter(([, count]) => count > 0).map(([channel]) => prefix + channel), logger);
  let warnedAlone = false;
  const alone = async (channel: string, message: unknown, err?: unknown) => {
    if (!warnedAlone) logger.warn({ err, channel }, 'bus publish not shared: Redis unreachable; delivered on this instance only');
    warnedAlone = true;
    await local.publish(channel, message);
  };
  link.listeners.push((connected) => void (warnedAlone &&= !connected));
  subscriber.on('message', (channel: string, payload: string) => {
    try {
      void local.publish(channel.slice(prefix.length), JSON.parse(payload));
    } catch (err) {
      logger.warn({ err, channel }, 'unreadable bus message dropped');
    }
  });
  return {
    async publish(channel, message) {
      // Redis down: other instances cannot hear it (they empty what they hold when their link
      // returns), but this instance's own subscribers still do.
      if (publisher.status !== 'ready') return alone(channel, message);
      try {
        await publisher.publish(prefix + channel, JSON.stringify(message));
      } catch (err) {
        await alone(channel, message, err);
      }
    },
    publishHere: (channel, message) => local.publishHere(channel, message),
    subscribe(channel, handler) {
      const count = counts.get(channel) ?? 0;
      counts.set(channel, count + 1);
      if (count === 0) void subscriber.subscribe(prefix + channel).catch((err: unknown) => logger.error({ err, channel }, 'bus subscribe failed'));
      const off = local.subscribe(channel, handler);
      return () => {
        off();
        const left = (counts.get(channel) ?? 1) - 1;
        counts.set(channel, left);
        if (left === 0) void subscriber.unsubscribe(prefix + channel).catch(() => undefined);
      };
    },
    status: () => ({ connected: link.connected, reconnects: link.reconnects }),
    onConnectionChange: (listener) => link.listeners.push(listener),
    async close() {
      await local.close();
      subscriber.disconnect();
      await publisher.quit().catch(() => undefined);
    },
  };
}

type ConnectionListener = (connected: boolean) => void;

/**
 * The subscriber connection's state. We subscribe again ourselves on every 'ready' (ioredis's own
 * resubscription is off) and count as connected only once Redis has confirmed the subscriptions:
 * a message published before that would be missed unseen.
 */
function subscriberLink(subscriber: Redis, channels: () => string[], logger: Logger): { connected: boolean; reconnects: number; listeners: ConnectionListener[] } {
  const link = { connected: false, reconnects: 0, listeners: [] as ConnectionListener[] };
  let everConnected = false;
  const set = (connected: boolean) => {
    if (link.connected === connected) return;
    link.connected = connected;
    if (connected && everConnected) link.reconnects += 1;
    everConnected ||= connected;
    for (const listener of link.listeners) listener(connected);
  };
  subscriber.on('ready', () => {
    const names = channels();
    if (names.length === 0) return set(true);
    subscriber.subscribe(...names).then(
      () => set(true),
      (err: unknown) => logger.warn({ err }, 'bus resubscribe failed'),
    );
  });
  for (const event of ['close', 'end', 'reconnecting']) subscriber.on(event, () => set(false));
  return link;
}
