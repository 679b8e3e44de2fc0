import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import type { Socket } from 'node:net';

/**
 * mqtt.js builds its TCP/TLS socket internally and offers no no-delay option, so Nagle's
 * algorithm is switched off on every new stream once the broker has answered CONNECT (before any
 * PUBLISH goes out), on reconnects too. Without it a QoS 1 round trip waits for delayed ACKs:
 * tens of milliseconds instead of well under one (bench/link-roundtrip.ts).
 */
export function disableNagle(client: MqttClient): void {
  const apply = (): void => {
    const stream = client.stream as Partial<Socket> | undefined;
    if (typeof stream?.setNoDelay === 'function') stream.setNoDelay(true);
  };
  client.on('connect', apply);
  apply();
}

/**
 * Connects to `url` (mqtt:// or mqtts://), failing fast when the first attempt fails (wrong
 * address or credentials are start-up errors); once connected, mqtt.js reconnects by itself.
 * MQTT 3.1.1 unless `options.protocolVersion` says otherwise.
 */
export async function connectMqtt(url: string, options: IClientOptions): Promise<MqttClient> {
  const client = await connectAsync(url, { protocolVersion: 4, connectTimeout: 10_000, reconnectPeriod: 1_000, ...options }, false);
  disableNagle(client);
  return client;
}
