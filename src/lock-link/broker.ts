import type { Logger } from 'pino';
import { LOCK_PACKET_LIMITS, lockBrokerPolicy, type ServiceCredentials } from '../device-protocol/broker-policy.js';
import { DEFAULT_TOPIC_PREFIX } from '../device-protocol/topics.js';
import { startEmbeddedBroker, type EmbeddedBroker } from '../mqtt/broker.js';
import { isValidTopicPrefix } from '../mqtt/topic-names.js';
import { BROKER_LOGIN_LIMITS, throttleLogins } from '../limits/login-throttle.js';

export interface LockBrokerOptions {
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** PEM key and certificate: the listener then speaks MQTT over TLS (mqtts://). */
  tls?: { key: string | Buffer; cert: string | Buffer; clientCa?: string | Buffer };
  /** True when `secret` is the device secret of lock `lockId`; with null (a device certificate proved the lock), while the lock is in service. */
  authenticateDevice: (lockId: string, secret: string | null) => Promise<boolean>;
  /**
   * A login allowed on every topic, for a service linked over the network (tests and benches).
   * Absent, as in production, where the service uses the broker's own API: nobody logs in as it.
   */
  serviceCredentials?: ServiceCredentials;
  topicPrefix?: string;
  logger: Logger;
  /** The clock failed logins are counted by, in Unix seconds (the service's ctx.now). */
  now?: () => number;
}

/** The embedded MQTT broker locks connect to, under the device protocol's rules and packet limits. */
export async function startLockBroker(options: LockBrokerOptions): Promise<EmbeddedBroker> {
  const prefix = options.topicPrefix ?? DEFAULT_TOPIC_PREFIX;
  if (!isValidTopicPrefix(prefix)) throw new Error(`invalid MQTT topic prefix "${prefix}"`);
  const now = options.now ?? (() => Date.now() / 1000);
  return startEmbeddedBroker({
    port: options.port,
    host: options.host,
    ...(options.tls ? { tls: options.tls } : {}),
    policy: throttleLogins(lockBrokerPolicy(prefix, options.serviceCredentials ?? null, options.authenticateDevice), BROKER_LOGIN_LIMITS, undefined, () => now() * 1000),
    packetLimits: LOCK_PACKET_LIMITS,
    logger: options.logger,
  });
}
