import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { authenticateLockSecret } from '../locks/provision.js';
import type { EmbeddedBroker } from '../mqtt/broker.js';
import { startLockBroker } from './broker.js';
import { checkBrokerIsClosed } from './broker-check.js';
import { connectLockLink, type LockLink, type LockLinkOptions } from './client.js';

/**
 * The lock link's infrastructure, built by the composition root: the embedded broker, unless
 * MQTT_URL names an external one, and the service's side of the link (an MQTT client of the
 * external broker, or the embedded broker's own publish and subscribe), connected but not yet
 * listening (./subscribers.ts makes it listen, once the context is whole). Both register their
 * close in `closers`: the link closes before the broker.
 */

/** The share name of every instance's shared subscriptions (`$share/latchkey/…`). */
const SHARE_GROUP = 'latchkey';

export interface OpenedLockLink {
  link: LockLink;
  /** The embedded broker, or null with an external one. */
  broker: EmbeddedBroker | null;
}

interface LinkInfrastructure {
  config: Config;
  logger: Logger;
  db: Database;
  /** The service's clock (Unix seconds). */
  now: () => number;
  /** Where the broker and the link register their close. */
  closers: Array<() => Promise<void> | void>;
}

/** The embedded broker, for locks only: the service reaches it through its API, with no login (`EmbeddedBroker.local`). */
async function startBroker(infra: LinkInfrastructure, port: number): Promise<EmbeddedBroker> {
  const { config } = infra;
  const clientCa = config.lockOps.tlsClientCaFile === null ? {} : { clientCa: await readFile(config.lockOps.tlsClientCaFile) };
  const tls = config.mqttTls ? { key: await readFile(config.mqttTls.keyFile), cert: await readFile(config.mqttTls.certFile), ...clientCa } : undefined;
  return startLockBroker({
    port,
    host: config.host,
    ...(tls ? { tls } : {}),
    authenticateDevice: (lockId, secret) => authenticateLockSecret(infra, lockId, secret),
    topicPrefix: config.topicPrefix,
    logger: infra.logger,
    now: infra.now,
  });
}

/** Starts the embedded broker (if any) and opens the service's side of the link to the broker. */
export async function openLockLink(infra: LinkInfrastructure): Promise<OpenedLockLink> {
  const { config, closers } = infra;
  let broker: EmbeddedBroker | null = null;
  let target: LockLinkOptions['broker'];
  if (config.mqtt.kind === 'embedded') {
    const embedded = await startBroker(infra, config.mqtt.port);
    broker = embedded;
    closers.push(() => embedded.close());
    // The link lives in the broker's process: it publishes and subscribes through the broker's own
    // API, without encoding and parsing MQTT packets on its side (docs/decisions.md).
    target = embedded.local;
  } else {
    target = config.mqtt.url;
    await checkBrokerIsClosed(config.mqtt.url, { allowInsecure: config.lockOps.allowInsecureBroker, logger: infra.logger });
  }
  // Instances sharing the external broker: each report to one of them, each reply to its sender (./shared-subscriptions.ts).
  const shared = config.mqtt.kind === 'external' && config.mqttSharedSubscriptions ? { shared: { group: SHARE_GROUP, replyTo: randomBytes(9).toString('base64url') } } : {};
  const link = await connectLockLink({ broker: target, topicPrefix: config.topicPrefix, replyTimeoutMs: config.lockReplyTimeoutMs, logger: infra.logger, now: infra.now, ...shared });
  closers.push(() => link.close());
  return { link, broker };
}
