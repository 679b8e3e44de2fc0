/**
 * How the lock link reaches the broker. Two transports carry the same link (./client.ts): mqtt.js
 * over a network connection (an external broker, ./transport-mqtt.ts) and the embedded broker's own
 * publish and subscribe (./transport-local.ts), which spares every command and reply the MQTT
 * packets the service would otherwise encode and parse on its side.
 */

/** How a message came, where the transport knows it (MQTT 5 with subscription identifiers). */
export interface Delivery {
  /** Sent because a subscription was made (a retained message), not as it was published. */
  retained: boolean;
  /** The identifiers of the subscriptions it came by (MQTT 5); empty when none was given. */
  subscriptions: readonly number[];
}

/** What a transport tells the link. */
export interface TransportListener {
  /** Every message on the subscribed filters, retained ones replayed on (re)subscribe included. */
  message(topic: string, payload: Buffer, delivery?: Delivery): void;
  /** The transport connected again after losing its connection (not on the first connection). */
  reconnected(): void;
}

export interface LinkTransport {
  /** Whether the link is connected to the broker now. */
  connected(): boolean;
  /** Connections made after the first one. */
  reconnects(): number;
  /** Hands inbound messages and reconnections to `listener` from now on. Once. */
  attach(listener: TransportListener): void;
  /** Publishes at QoS 1; `done` once the broker has the message, with an error when it never got it. */
  publish(topic: string, payload: string, retain: boolean, done: (err?: Error) => void): void;
  /**
   * Subscribes to `filters` at QoS 1, with the subscription identifier `id` when given (MQTT 5:
   * the broker names it on each message the filters bring); rejects when the broker refuses any.
   */
  subscribe(filters: string[], id?: number): Promise<void>;
  /** Ends subscriptions made by `subscribe` (an MQTT connection only: the embedded broker's link never needs to). */
  unsubscribe(filters: string[]): Promise<void>;
  /** Disconnects; `force` drops what is still in flight. */
  end(force?: boolean): Promise<void>;
}
