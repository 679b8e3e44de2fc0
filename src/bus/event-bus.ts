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
  publish(channel: string, message: unknown): Promise<void>;
  subscribe(channel: string, handler: BusHandler): () => void;
  close(): Promise<void>;
}

export function createInProcessBus(): EventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    async publish(channel, message) {
      emitter.emit(channel, message);
    },
    subscribe(channel, handler) {
      emitter.on(channel, handler);
      return () => emitter.off(channel, handler);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

/** Redis pub/sub: one subscriber connection per instance, fanned out locally. */
export function createRedisBus(url: string, logger: Logger, prefix = 'latchkey:bus:'): EventBus {
  const publisher = new Redis(url, { maxRetriesPerRequest: 2 });
  // No ready check: its INFO can race our first SUBSCRIBE and be refused in subscriber mode (ioredis #2037).
  const subscriber = new Redis(url, { enableReadyCheck: false });
  for (const connection of [publisher, subscriber]) connection.on('error', (err: Error) => logger.warn({ err }, 'bus connection error'));
  const local = createInProcessBus();
  const counts = new Map<string, number>();
  subscriber.on('message', (channel: string, payload: string) => {
    try {
      void local.publish(channel.slice(prefix.length), JSON.parse(payload));
    } catch (err) {
      logger.warn({ err, channel }, 'unreadable bus message dropped');
    }
  });
  return {
    async publish(channel, message) {
      await publisher.publish(prefix + channel, JSON.stringify(message));
    },
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
    async close() {
      await local.close();
      subscriber.disconnect();
      await publisher.quit().catch(() => undefined);
    },
  };
}
