import { sameSecret } from '../crypto/compare.js';
import { DEVICE_OU } from '../crypto/certificate.js';
import type { BrokerPolicy, LoginDecision as BrokerLoginDecision, PeerCertificate } from '../mqtt/broker.js';
import { LOCK_PUBLISHES, LOCK_SUBSCRIBES, isValidLockId, isValidReplyRoute, lockTopic } from './topics.js';

/**
 * Who may do what on the embedded broker, as pure functions (src/mqtt/broker.ts only wires them
 * to aedes). A lock is confined to `{prefix}/{ownId}/…`; the service's own clients may use any
 * topic. With the embedded broker the service uses the broker's own API and has no login at all
 * (`service` null).
 */

export type BrokerIdentity = { kind: 'service' } | { kind: 'lock'; lockId: string };

export interface ServiceCredentials {
  username: string;
  password: string;
}

export type LoginDecision = BrokerLoginDecision<BrokerIdentity>;

/**
 * The largest packets a lock may send (src/mqtt/packet-size-guard.ts): its CONNECT (id, secret,
 * will) and then its reports, all well under a kilobyte; a reply's error is at most 1 KiB.
 */
export const LOCK_PACKET_LIMITS = { firstLimit: 4 * 1024, limit: 64 * 1024 };

/**
 * Decides a CONNECT. `verifyDevice` is called only for a well-formed lock login whose client id
 * equals its username, so a malformed id never reaches the database; with a null secret for a
 * lock that proved itself with a device certificate (is it still in service?).
 */
export async function decideLogin(
  clientId: string,
  username: string | undefined,
  password: Buffer | undefined,
  service: ServiceCredentials | null,
  verifyDevice: (lockId: string, secret: string | null) => Promise<boolean>,
  peer?: PeerCertificate,
): Promise<LoginDecision> {
  // A device certificate from Latchkey's CA (issue 16): its CN is the lock id, no password needed.
  if (peer !== undefined && peer.organizationalUnit === DEVICE_OU && isValidLockId(peer.commonName) && peer.commonName === peer.commonName.toLowerCase()) {
    if (clientId !== peer.commonName || (username !== undefined && username !== peer.commonName)) return { ok: false, reason: 'identifier_rejected' };
    // No secret to check: only whether the lock is still in service (a decommissioned one is not).
    if (!(await verifyDevice(peer.commonName, null))) return { ok: false, reason: 'bad_credentials' };
    return { ok: true, identity: { kind: 'lock', lockId: peer.commonName } };
  }
  if (username === undefined || password === undefined) return { ok: false, reason: 'bad_credentials' };
  const secret = password.toString('utf8');
  if (service !== null && username === service.username) {
    return sameSecret(secret, service.password) ? { ok: true, identity: { kind: 'service' } } : { ok: false, reason: 'bad_credentials' };
  }
  // Ids are issued in lower case; another spelling would be a second session of the same lock.
  if (!isValidLockId(username) || username !== username.toLowerCase()) return { ok: false, reason: 'bad_credentials' };
  if (clientId !== username) return { ok: false, reason: 'identifier_rejected' };
  if (!(await verifyDevice(username, secret))) return { ok: false, reason: 'bad_credentials' };
  return { ok: true, identity: { kind: 'lock', lockId: username } };
}

export function mayPublish(identity: BrokerIdentity | undefined, topic: string, prefix: string): boolean {
  if (identity === undefined) return false;
  if (identity.kind === 'service') return !topic.startsWith('$');
  if (LOCK_PUBLISHES.some((kind) => topic === lockTopic(prefix, identity.lockId, kind))) return true;
  // Protocol 1.6: a reply routed to the instance that sent the command, one level below its own `reply`.
  const replies = `${lockTopic(prefix, identity.lockId, 'reply')}/`;
  return topic.startsWith(replies) && isValidReplyRoute(topic.slice(replies.length));
}

/** What a lock's message may leave retained on the broker: its presence and state, never an event or a reply (docs/device-protocol.md). */
const LOCK_RETAINS = ['online', 'state'] as const;

/** Whether a publish the client may make may also be retained; when not, the broker keeps it unretained. */
export function mayRetain(identity: BrokerIdentity | undefined, topic: string, prefix: string): boolean {
  if (identity === undefined) return false;
  if (identity.kind === 'service') return true;
  return LOCK_RETAINS.some((kind) => topic === lockTopic(prefix, identity.lockId, kind));
}

/** Exact topics only: a lock subscribing to `locks/+/config` would read every lock's users. */
export function maySubscribe(identity: BrokerIdentity | undefined, topic: string, prefix: string): boolean {
  if (identity === undefined) return false;
  if (identity.kind === 'service') return true;
  return LOCK_SUBSCRIBES.some((kind) => topic === lockTopic(prefix, identity.lockId, kind));
}

/** The rules above for topics under `prefix`, as the broker asks for them. */
export function lockBrokerPolicy(prefix: string, service: ServiceCredentials | null, verifyDevice: (lockId: string, secret: string | null) => Promise<boolean>): BrokerPolicy<BrokerIdentity> {
  return {
    login: (clientId, username, password, peer) => decideLogin(clientId, username, password, service, verifyDevice, peer),
    mayPublish: (identity, topic) => mayPublish(identity, topic, prefix),
    mayRetain: (identity, topic) => mayRetain(identity, topic, prefix),
    maySubscribe: (identity, topic) => maySubscribe(identity, topic, prefix),
  };
}
