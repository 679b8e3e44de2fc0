import { connectAsync, MqttClient, type IClientOptions } from 'mqtt';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

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

/** Where to connect: a broker URL (mqtt:// or mqtts://), or a maker of in-process connections. */
export type MqttTarget = string | (() => Duplex);

const DEFAULTS: IClientOptions = { protocolVersion: 4, connectTimeout: 10_000, reconnectPeriod: 1_000 };

/** Like mqtt.js connectAsync without retries, over the streams `open` makes (one per (re)connection). */
function connectOver(open: () => Duplex, options: IClientOptions): Promise<MqttClient> {
  const client = new MqttClient(() => open(), options);
  return new Promise((resolve, reject) => {
    const settle = (err?: Error): void => {
      client.off('connect', onConnect);
      client.off('error', onError);
      client.off('close', onClose);
      if (err === undefined) return resolve(client);
      client.end(true);
      reject(err);
    };
    const onConnect = (): void => settle();
    const onError = (err: Error): void => settle(err);
    const onClose = (): void => settle(new Error('the broker closed the connection before CONNACK'));
    client.once('connect', onConnect);
    client.once('error', onError);
    client.once('close', onClose);
  });
}

/**
 * Connects to `target`, failing fast when the first attempt fails (wrong address or credentials
 * are start-up errors); once connected, mqtt.js reconnects by itself. MQTT 3.1.1 unless
 * `options.protocolVersion` says otherwise.
 */
export async function connectMqtt(target: MqttTarget, options: IClientOptions): Promise<MqttClient> {
  const client = typeof target === 'string' ? await connectAsync(target, { ...DEFAULTS, ...options }, false) : await connectOver(target, { ...DEFAULTS, ...options });
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
