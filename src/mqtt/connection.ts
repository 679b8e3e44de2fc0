import { connect, connectAsync, type MqttClient, type IClientOptions } from 'mqtt';
import type { Socket } from 'node:net';

/**
 * mqtt.js builds its TCP/TLS socket internally and offers no no-delay option, so Nagle's
 * algorithm is switched off on every new stream once the broker has answered CONNECT (before any
 * PUBLISH goes out), on reconnects too. Without it a QoS 1 round trip waits for delayed ACKs:
 * tens of milliseconds instead of well under one (bench/link-roundtrip.ts).
 */
function disableNagle(client: MqttClient): void {
  const apply = (): void => {
    const stream = client.stream as Partial<Socket> | undefined;
    if (typeof stream?.setNoDelay === 'function') stream.setNoDelay(true);
  };
  client.on('connect', apply);
  apply();
}

const DEFAULTS: IClientOptions = { protocolVersion: 4, connectTimeout: 10_000, reconnectPeriod: 1_000 };

/**
 * Connects to the broker at `url` (mqtt:// or mqtts://), failing fast when the first attempt
 * fails (wrong address or credentials are start-up errors); once connected, mqtt.js reconnects by
 * itself. MQTT 3.1.1 unless `options.protocolVersion` says otherwise.
 */
export async function connectMqtt(url: string, options: IClientOptions): Promise<MqttClient> {
  const client = await connectAsync(url, { ...DEFAULTS, ...options }, false);
  disableNagle(client);
  return client;
}

/**
 * Starts connecting to the broker at `url` and returns at once: a client for a process that must
 * come up while the broker is away (the bridge) and connect whenever it can. mqtt.js keeps trying.
 */
export function startMqtt(url: string, options: IClientOptions): MqttClient {
  const client = connect(url, { ...DEFAULTS, ...options });
  disableNagle(client);
  return client;
}

/**
 * Retries a lost connection after about `firstMs`, then twice as long each time up to `maxMs`,
 * each wait spread by ±50 % so that locks cut off together do not all return at the same moment
 * (docs/device-protocol.md §1). mqtt.js waits `options.reconnectPeriod`, which it reads as the
 * connection closes: this sets it just before. A client made not to reconnect is left alone.
 */
export function reconnectWithBackoff(client: Pick<MqttClient, 'options' | 'on' | 'prependListener'>, firstMs = 1_000, maxMs = 60_000, random: () => number = Math.random): void {
  if (!(client.options.reconnectPeriod! > 0)) return;
  let nextMs = firstMs;
  client.prependListener('close', () => {
    client.options.reconnectPeriod = Math.max(1, Math.round(nextMs * (0.5 + random())));
    nextMs = Math.min(nextMs * 2, maxMs);
  });
  client.on('connect', () => {
    nextMs = firstMs;
  });
}
