import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { authenticateLockSecret } from '../locks/provision.js';
import type { EmbeddedBroker } from '../mqtt/broker.js';
import type { MqttTarget } from '../mqtt/connection.js';
import { startLockBroker } from './broker.js';
import { checkBrokerIsClosed } from './broker-check.js';
import { connectLockLink, type LockLink } from './client.js';

/**
 * The lock link's infrastructure, built by the composition root: the embedded broker, unless
 * MQTT_URL names an external one, and the service's MQTT client, connected but not yet listening
 * (./subscribers.ts makes it listen, once the context is whole). Both register their close in
 * `closers`: the link closes before the broker.
 */

export interface OpenedLockLink {
  link: LockLink;
  /** The embedded broker, or null with an external one. */
  broker: EmbeddedBroker | null;
}

interface LinkInfrastructure {
  config: Config;
  logger: Logger;
  db: Database;
  /** Where the broker and the link register their close. */
  closers: Array<() => Promise<void> | void>;
}

async function startBroker(infra: LinkInfrastructure, port: number, service: { username: string; password: string }): Promise<EmbeddedBroker> {
  const { config } = infra;
  const clientCa = config.lockOps.tlsClientCaFile === null ? {} : { clientCa: await readFile(config.lockOps.tlsClientCaFile) };
  const tls = config.mqttTls ? { key: await readFile(config.mqttTls.keyFile), cert: await readFile(config.mqttTls.certFile), ...clientCa } : undefined;
  return startLockBroker({
    port,
    host: config.host,
    ...(tls ? { tls } : {}),
    serviceCredentials: service,
    authenticateDevice: (lockId, secret) => authenticateLockSecret(infra, lockId, secret),
    topicPrefix: config.topicPrefix,
    logger: infra.logger,
  });
}

/** Starts the embedded broker (if any) and connects the service's client to the broker. */
export async function openLockLink(infra: LinkInfrastructure): Promise<OpenedLockLink> {
  const { config, closers } = infra;
  let broker: EmbeddedBroker | null = null;
  let target: MqttTarget;
  let credentials: { username?: string; password?: string } = {};
  if (config.mqtt.kind === 'embedded') {
    // Random per process: only this process's own client may use every topic.
    const service = { username: `latchkey-service-${randomUUID()}`, password: randomBytes(32).toString('base64url') };
    const embedded = await startBroker(infra, config.mqtt.port, service);
    broker = embedded;
    closers.push(() => embedded.close());
    // The service's client lives in the broker's process: an in-memory connection spares every
    // command and reply a loopback socket (and TLS) in each direction (docs/decisions.md).
    target = () => embedded.connectInProcess();
    credentials = service;
  } else {
    target = config.mqtt.url;
    await checkBrokerIsClosed(config.mqtt.url, { allowInsecure: config.lockOps.allowInsecureBroker, logger: infra.logger });
  }
  const link = await connectLockLink({ broker: target, ...credentials, topicPrefix: config.topicPrefix, replyTimeoutMs: config.lockReplyTimeoutMs, logger: infra.logger });
  closers.push(() => link.close());
  return { link, broker };
}
