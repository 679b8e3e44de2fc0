import type { LocalBrokerClient } from '../mqtt/broker.js';
import type { LinkTransport, TransportListener } from './transport.js';

/**
 * The link inside the embedded broker's process: publishes and subscribes through the broker's
 * own API. Locks see the same topics, payloads, QoS and retained messages as from a connected
 * client; the broker's login and ACLs still stand between every lock and every topic (only the
 * broker's owner publishes this way). There is no connection to lose: it never reconnects.
 */
export class LocalTransport implements LinkTransport {
  private listener: TransportListener | undefined;
  private unsubscribeAll: (() => Promise<void>) | undefined;
  private ended = false;

  constructor(private readonly broker: LocalBrokerClient) {}

  connected(): boolean {
    return !this.ended && this.broker.isOpen();
  }

  reconnects(): number {
    return 0;
  }

  attach(listener: TransportListener): void {
    this.listener = listener;
  }

  publish(topic: string, payload: string, retain: boolean, done: (err?: Error) => void): void {
    if (!this.connected()) return done(new Error('the lock link is closed'));
    this.broker.publish(topic, Buffer.from(payload), { qos: 1, retain }, done);
  }

  async subscribe(filters: string[]): Promise<void> {
    if (this.unsubscribeAll !== undefined) throw new Error('already subscribed');
    this.unsubscribeAll = await this.broker.subscribe(filters, (topic, payload) => {
      if (!this.ended) this.listener?.message(topic, payload);
    });
  }

  unsubscribe(): Promise<void> {
    return Promise.reject(new Error('the embedded broker\'s link subscribes once, for its whole life'));
  }

  async end(): Promise<void> {
    this.ended = true;
    await this.unsubscribeAll?.();
  }
}
