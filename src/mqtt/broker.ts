import type { EventEmitter } from 'node:events';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { Aedes, AuthenticateError, Client } from 'aedes';
import type { Logger } from 'pino';
import { guardPacketSizes, type PacketLimits } from './packet-size-guard.js';
import { RetainedStore, type RetainedPersistence } from './retained-store.js';

export type LoginDecision<Identity> =
  | { ok: true; identity: Identity }
  | { ok: false; reason: 'bad_credentials' | 'identifier_rejected' | 'throttled' };

/**
 * Who may do what on the broker, decided by whoever runs it (the lock link: its device protocol's
 * rules, src/device-protocol/broker-policy.ts). The broker knows MQTT, not what the topics carry.
 */
/** The subject of a client certificate the TLS listener verified against its client CA. */
export interface PeerCertificate {
  commonName: string;
  organizationalUnit: string | null;
}

export interface BrokerPolicy<Identity> {
  /**
   * Decides a CONNECT; a rejection is answered "server unavailable". `peer`: a verified client
   * certificate's subject; `address`: a network client's address (for login throttling).
   */
  login(clientId: string, username: string | undefined, password: Buffer | undefined, peer?: PeerCertificate, address?: string): Promise<LoginDecision<Identity>>;
  /** `identity` is undefined for a client that never logged in (or a will of one). */
  mayPublish(identity: Identity | undefined, topic: string): boolean;
  /** Whether a publish the client may make may also be retained; when not, the broker keeps it unretained. */
  mayRetain(identity: Identity | undefined, topic: string): boolean;
  maySubscribe(identity: Identity | undefined, topic: string): boolean;
}

export interface EmbeddedBrokerOptions<Identity> {
  /** 0 picks a free port. */
  port: number;
  host: string;
  /**
   * PEM key and certificate: the listener then speaks MQTT over TLS (mqtts://). With `clientCa`
   * it asks for client certificates and passes a verified one's subject to the policy; clients
   * without one still log in with a password.
   */
  tls?: { key: string | Buffer; cert: string | Buffer; clientCa?: string | Buffer };
  policy: BrokerPolicy<Identity>;
  /** The largest packets a network client may send. */
  packetLimits: PacketLimits;
  logger: Logger;
}

/**
 * The broker's own publish and subscribe, for code in its process (the service's side of the lock
 * link): no MQTT packets to encode and parse, no login and no ACL check (the caller is the broker's
 * owner). What it publishes is stored when retained, queued for offline sessions and routed to
 * subscribed clients exactly as a client's publication would be.
 */
export interface LocalBrokerClient {
  /** Whether the broker is still open. */
  isOpen(): boolean;
  /** Calls `done` once the broker has routed (and, when retained, stored) the message. */
  publish(topic: string, payload: Buffer, options: { qos: 0 | 1; retain: boolean }, done: (err?: Error) => void): void;
  /**
   * Hears every message published on `filters` from then on, then the retained messages they
   * match (as a client's SUBSCRIBE would); resolves once subscribed, with the unsubscribe.
   * `onMessage` runs synchronously as the broker routes the message and must not throw.
   */
  subscribe(filters: string[], onMessage: (topic: string, payload: Buffer) => void): Promise<() => Promise<void>>;
}

export interface EmbeddedBroker {
  port: number;
  /** Publish and subscribe from inside this process, without a connection (the service's own link). */
  local: LocalBrokerClient;
  /**
   * Closes the connection of the client `clientId` now, if one is connected (its will, if any, is
   * published, as for any connection lost); resolves once closed, true when there was one.
   */
  disconnect(clientId: string): Promise<boolean>;
  close(): Promise<void>;
}

// CONNACK return codes of MQTT 3.1.1.
const IDENTIFIER_REJECTED = 2;
const SERVER_UNAVAILABLE = 3;
const BAD_USERNAME_OR_PASSWORD = 4;
const NOT_AUTHORIZED = 5;

function authError(message: string, returnCode: number): AuthenticateError {
  return Object.assign(new Error(message), { returnCode }) as AuthenticateError;
}

/** Topics are attacker-chosen; keep log lines bounded. */
function short(topic: string): string {
  return topic.length > 200 ? `${topic.slice(0, 200)}…` : topic;
}

/** Wires a policy into an aedes instance. */
function guard<Identity>(broker: Aedes, policy: BrokerPolicy<Identity>, logger: Logger, peers: WeakMap<object, PeerCertificate>): void {
  const identities = new WeakMap<Client, Identity>();

  broker.authenticate = (client, username, password, done) => {
    // The client's address, for login throttling.
    const address = (client.conn as Partial<Socket>).remoteAddress;
    policy.login(client.id, username, password, peers.get(client.conn as object), address).then(
      (decision) => {
        if (decision.ok) {
          identities.set(client, decision.identity);
          return done(null, true);
        }
        logger.warn({ clientId: short(client.id), reason: decision.reason }, 'mqtt login refused');
        const code = decision.reason === 'identifier_rejected' ? IDENTIFIER_REJECTED : decision.reason === 'throttled' ? NOT_AUTHORIZED : BAD_USERNAME_OR_PASSWORD;
        done(authError(decision.reason, code), false);
      },
      (err: unknown) => {
        // A login still being checked as the service shuts down finds the database closed: not an error.
        if (broker.closed) logger.debug({ clientId: short(client.id) }, 'mqtt login dropped: shutting down');
        else logger.error({ err, clientId: short(client.id) }, 'mqtt login could not be checked');
        done(authError('authentication unavailable', SERVER_UNAVAILABLE), false);
      },
    );
  };

  // Also called for a client's will when it drops: a will on a foreign topic is dropped too.
  broker.authorizePublish = (client, packet, done) => {
    const identity = client === null ? undefined : identities.get(client);
    if (policy.mayPublish(identity, packet.topic)) {
      // A retained event or reply would be replayed to the service on every (re)subscribe as if new.
      if (packet.retain && !policy.mayRetain(identity, packet.topic)) packet.retain = false;
      return done(null);
    }
    logger.warn({ clientId: client === null ? null : short(client.id), topic: short(packet.topic) }, 'mqtt publish refused');
    // aedes closes the connection of a client whose publish is refused (MQTT 3.1.1 has no NACK).
    done(new Error('publish not authorised'));
  };

  broker.authorizeSubscribe = (client, subscription, done) => {
    if (policy.maySubscribe(identities.get(client), subscription.topic)) return done(null, subscription);
    logger.warn({ clientId: short(client.id), topic: short(subscription.topic) }, 'mqtt subscription refused');
    done(null, null); // negated grant: SUBACK 0x80, the connection stays up
  };
}

/** What a local subscriber reads of a message, routed or retained. */
interface Message {
  topic: string;
  payload: Buffer | string;
}

/** The retained messages `filters` match, from aedes' persistence (its typings leave it `any`). */
function retainedMessages(broker: Aedes, filters: string[]): AsyncIterable<Message> {
  const persistence = (broker as unknown as { persistence: { createRetainedStreamCombi(patterns: string[]): AsyncIterable<Message> } }).persistence;
  return persistence.createRetainedStreamCombi(filters);
}

function localClient(broker: Aedes, logger: Logger): LocalBrokerClient {
  const asBuffer = (payload: Buffer | string): Buffer => (typeof payload === 'string' ? Buffer.from(payload) : payload);
  const subscribe = async (filters: string[], onMessage: (topic: string, payload: Buffer) => void): Promise<() => Promise<void>> => {
    const deliver = (packet: Message, done: () => void): void => {
      try {
        // Filters starting with a wildcard would match $SYS topics (MQTT-4.7.2-1); ours never do, but keep the rule.
        if (packet.topic.charCodeAt(0) !== 36) onMessage(packet.topic, asBuffer(packet.payload));
      } catch (err) {
        // It runs inside the publisher's routing: a throw must not reach the broker.
        logger.error({ err, topic: short(packet.topic) }, 'a local subscriber failed on a message');
      }
      // aedes holds the publisher's flow until every subscriber calls back: call back at once, but
      // from a fresh stack: called back here, mqemitter delivers its next queued message inside
      // this call, and a storm of reports (a thousand locks reconnecting) overflowed the stack.
      process.nextTick(done);
    };
    await Promise.all(filters.map((filter) => new Promise<void>((resolve) => broker.subscribe(filter, deliver, resolve))));
    void (async () => {
      for await (const retained of retainedMessages(broker, filters)) deliver(retained, () => undefined);
    })().catch((err: unknown) => logger.error({ err }, 'reading retained messages for a local subscriber failed'));
    return async () => {
      await Promise.all(filters.map((filter) => new Promise<void>((resolve) => broker.unsubscribe(filter, deliver, resolve))));
    };
  };
  return {
    isOpen: () => !broker.closed,
    publish: (topic, payload, { qos, retain }, done) => broker.publish({ cmd: 'publish', topic, payload, qos, retain, dup: false }, done),
    subscribe,
  };
}

/** The subject of the client certificate a TLS socket verified, if any. */
function verifiedPeer(socket: Duplex): PeerCertificate | undefined {
  const tls = socket as Partial<TLSSocket>;
  if (tls.authorized !== true || typeof tls.getPeerCertificate !== 'function') return undefined;
  const subject = tls.getPeerCertificate().subject as Record<string, string | string[] | undefined> | undefined;
  const one = (value: string | string[] | undefined): string | null => (typeof value === 'string' ? value : null);
  const commonName = one(subject?.CN);
  return commonName === null ? undefined : { commonName, organizationalUnit: one(subject?.OU) };
}

/**
 * Connections the kernel may hold for the broker before it accepts them (capped by the system's
 * net.core.somaxconn). Node's default, 511, overflowed in a reconnect storm of thousands of locks:
 * each dropped SYN is retried by the lock's kernel 1, 3, 7, 15 s later, past the CONNACK wait
 * (measured: docs/scaling.md, "Fleet").
 */
const ACCEPT_BACKLOG = 65_535;

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: ACCEPT_BACKLOG }, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/**
 * Starts an in-process MQTT broker (what locks connect to when no external broker is configured).
 * Every socket has Nagle's algorithm off: MQTT packets are small and a QoS 1 exchange is
 * write-then-wait, which with Nagle and delayed ACKs costs tens of milliseconds per round trip.
 */
export async function startEmbeddedBroker<Identity>(options: EmbeddedBrokerOptions<Identity>): Promise<EmbeddedBroker> {
  const { Aedes } = await import('aedes');
  // connectTimeout: how long a new socket may take to send its CONNECT. In a reconnect storm the
  // whole fleet's sockets queue behind one event loop, and a socket dropped at 10 s only comes back
  // (docs/scaling.md, "Fleet"); 30 s is what locks wait for their CONNACK (docs/device-protocol.md).
  const broker = await Aedes.createBroker({ heartbeatInterval: 60_000, connectTimeout: 30_000, drainTimeout: 30_000 });
  // A lock's SUBSCRIBE finds its retained config by topic, not by walking the fleet's (./retained-store.ts).
  new RetainedStore().replaceIn((broker as unknown as { persistence: RetainedPersistence }).persistence);
  const peers = new WeakMap<object, PeerCertificate>();
  guard(broker, options.policy, options.logger, peers);
  // aedes emits 'error' on itself (a failed will sweep, an enqueue failure; its typings omit it): unheard, it would end the process.
  (broker as EventEmitter).on('error', (err: Error) => options.logger.error({ err }, 'embedded MQTT broker error'));
  broker.on('clientError', (client, err) => options.logger.debug({ clientId: short(client.id), err: err.message }, 'mqtt client error'));
  broker.on('connectionError', (client, err) => options.logger.debug({ err: err.message, clientId: short(client.id ?? '') }, 'mqtt connection error'));

  const sockets = new Set<Socket>();
  const onSocket = (socket: Socket): void => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  // Every network client (lock) passes the packet-size guard.
  const handle = (socket: Duplex): void => {
    const guarded = guardPacketSizes(socket, options.packetLimits);
    const peer = verifiedPeer(socket);
    if (peer) peers.set(guarded, peer);
    broker.handle(guarded);
  };
  const clientCa = options.tls?.clientCa;
  // Without rejectUnauthorized a client with no (or a foreign) certificate still connects, and logs in by password or not at all.
  const clientAuth = clientCa === undefined ? {} : { ca: clientCa, requestCert: true, rejectUnauthorized: false };
  const server: Server = options.tls
    ? createTlsServer({ key: options.tls.key, cert: options.tls.cert, noDelay: true, ...clientAuth }, handle)
    : createTcpServer({ noDelay: true }, handle);
  // 'connection' carries the raw TCP socket for TLS servers too.
  server.on('connection', onSocket);

  let port: number;
  try {
    port = await listen(server, options.port, options.host);
  } catch (err) {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    throw err;
  }
  options.logger.info({ port, host: options.host, tls: options.tls !== undefined }, 'embedded MQTT broker listening');

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    // Stop accepting, disconnect every client (aedes), then drop whatever socket is left.
    const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await serverClosed;
  };
  const disconnect = (clientId: string): Promise<boolean> => {
    // aedes keeps its connected clients by id (its typings leave the map out).
    const client = (broker as unknown as { clients: Record<string, Client | undefined> }).clients[clientId];
    if (client === undefined) return Promise.resolve(false);
    return new Promise((resolve) => client.close(() => resolve(true)));
  };
  return { port, local: localClient(broker, options.logger), disconnect, close: () => (closing ??= close()) };
}
