import type { MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import type { LinkTransport, TransportListener } from './transport.js';

/**
 * The link over an mqtt.js client, to an external broker (mqtt:// or mqtts://); tests use it with
 * the embedded broker's network listener too. mqtt.js reconnects by itself and resubscribes.
 */
export class MqttTransport implements LinkTransport {
  private reconnectCount = 0;

  constructor(private readonly client: MqttClient, private readonly logger: Logger) {}

  connected(): boolean {
    return this.client.connected;
  }

  reconnects(): number {
    return this.reconnectCount;
  }

  attach(listener: TransportListener): void {
    const { client, logger } = this;
    client.on('message', (topic, payload, packet) => {
      const ids = packet.properties?.subscriptionIdentifier;
      listener.message(topic, payload, { retained: packet.retain, subscriptions: ids === undefined ? [] : Array.isArray(ids) ? ids : [ids] });
    });
    // The first connection is over before these listeners exist.
    client.on('connect', () => {
      listener.reconnected();
      this.reconnectCount += 1;
    });
    client.on('error', (err) => logger.warn({ err: err.message }, 'MQTT client error'));
    client.on('offline', () => logger.warn('MQTT connection lost; reconnecting'));
    client.on('reconnect', () => logger.debug('MQTT reconnecting'));
  }

  publish(topic: string, payload: string, retain: boolean, done: (err?: Error) => void): void {
    this.client.publish(topic, payload, { qos: 1, retain }, (err) => done(err));
  }

  async subscribe(filters: string[], id?: number): Promise<void> {
    // mqtt.js rejects when the SUBACK refuses any topic (0x80); on reconnecting it subscribes again with the same identifier.
    await this.client.subscribeAsync(filters, { qos: 1, ...(id === undefined ? {} : { properties: { subscriptionIdentifier: id } }) });
  }

  async unsubscribe(filters: string[]): Promise<void> {
    await this.client.unsubscribeAsync(filters);
  }

  async end(force = false): Promise<void> {
    await this.client.endAsync(force);
  }
}
