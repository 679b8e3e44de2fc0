/**
 * How the lock link reaches the broker. Two transports carry the same link (./client.ts): mqtt.js
 * over a network connection (an external broker, ./transport-mqtt.ts) and the embedded broker's own
 * publish and subscribe (./transport-local.ts), which spares every command and reply the MQTT
 * packets the service would otherwise encode and parse on its side.
 */

/** What a transport tells the link. */
export interface TransportListener {
  /** Every message on the subscribed filters, retained ones replayed on (re)subscribe included. */
  message(topic: string, payload: Buffer): void;
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
  /** Subscribes to `filters` at QoS 1; rejects when the broker refuses any of them. */
  subscribe(filters: string[]): Promise<void>;
  /** Disconnects; `force` drops what is still in flight. */
  end(force?: boolean): Promise<void>;
}
