// The load generator of bench/fleet.ts: many simulated locks in this one process, each a real
// SimulatedLock (src/simulator/, on src/lock-edge/: its own MQTT connection with its will,
// presence, retained config, every command checked at its edge), so thousands of locks need no
// thousands of processes. Forked with an IPC channel; `{ type: 'start', mqttUrl, rootCertificate,
// locks: [{ id, secret }] }` (too long for argv at 5,000 locks) connects them, `connectsPerSecond` at a time;
// `{ type: 'status' }` is answered with how many are connected and how many hold a config,
// `{ type: 'stop' }` by closing them.
//
// Each connection leaves from a loopback address of its own (127.0.0.0/8, the next one for each new
// socket): a real fleet's locks come from many addresses, and from one address the embedded
// broker's per-address login guard (src/limits/login-throttle.ts: 30 logins in flight) would set
// the pace of a reconnect storm, not the service. FLEET_ONE_ADDRESS=1 keeps them all on 127.0.0.1.
// Not a benchmark by itself.
import net from 'node:net';
import { lockTrustAnchor } from '../src/lock-edge/command-check.js';
import { SimulatedLock } from '../src/simulator/simulated-lock.js';

/** Where this process's source addresses start (each process of the fleet its own range). */
const addresses = { first: 0, next: 0 };
if (process.env.FLEET_ONE_ADDRESS !== '1') {
  // mqtt.js opens its sockets with net.createConnection({ port, host }) and takes no local address.
  const createConnection = net.createConnection.bind(net) as (options: net.NetConnectOpts) => net.Socket;
  /** 127.0.1.0 onwards (127.0.0.1 left to everything else), 16,384 addresses a process before wrapping. */
  const sourceAddress = (): string => {
    const n = 256 + addresses.first + (addresses.next++ % 16_384);
    return `127.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  };
  (net as { createConnection: unknown }).createConnection = (options: net.NetConnectOpts, ...rest: unknown[]) =>
    typeof options === 'object' && 'port' in options && options.localAddress === undefined && rest.length === 0
      ? createConnection({ ...options, localAddress: sourceAddress() })
      : (createConnection as (...args: unknown[]) => net.Socket)(options, ...rest);
}

export type FleetRequest = ({ type: 'start' } & FleetOptions) | { type: 'status' } | { type: 'mark' } | { type: 'stop' };
/**
 * `rssMiB`: this process's resident memory now; `baselineMiB`: before it made any lock. Since the
 * last `mark`: `connectedAfterMs`, when each lock that connected did so (ms after the mark), and
 * `errors`, the connection errors the locks saw, by message (why a lock had to wait again).
 */
export type FleetMessage = {
  type: 'status'; connected: number; configured: number; rssMiB: number; baselineMiB: number;
  connectedAfterMs: number[]; errors: Record<string, number>;
};

interface FleetOptions {
  mqttUrl: string;
  rootCertificate: string;
  locks: Array<{ id: string; secret: string }>;
  /** The first of this process's source addresses (an offset into 127.0.1.0 onwards). */
  firstAddress: number;
  /** How fast the locks make their first connection; after that each reconnects by itself. */
  connectsPerSecond: number;
}
const baselineMiB = process.memoryUsage().rss / 2 ** 20;
const locks: SimulatedLock[] = [];
/** What the locks saw since the last mark: see FleetMessage. */
let since = { at: performance.now(), connectedAfterMs: [] as number[], errors: {} as Record<string, number> };
const heard = (event: string, fields?: Record<string, unknown>): void => {
  if (event === 'connected') since.connectedAfterMs.push(Math.round(performance.now() - since.at));
  else if (event === 'mqtt_error') {
    // Ports and addresses vary by lock: the kind of error is what counts.
    const kind = String(fields?.message ?? '?').replace(/\d+\.\d+\.\d+\.\d+(:\d+)?/g, 'ADDRESS');
    since.errors[kind] = (since.errors[kind] ?? 0) + 1;
  }
};

process.on('message', (request: FleetRequest) => {
  if (request.type === 'start') {
    // One anchor for the process's locks, as the bridge holds one for its locks: a certificate
    // parse each (≈ 2 ms) made starting 2,500 locks take 20 s of CPU.
    const trustedRoot = lockTrustAnchor(request.rootCertificate);
    for (const { id, secret } of request.locks) {
      locks.push(new SimulatedLock({
        id, secret, mqttUrl: request.mqttUrl, replyDelayMs: 0, trustedRoot,
        now: () => Date.now() / 1000, log: heard,
      }));
    }
    addresses.first = request.firstAddress;
    // As real locks: each keeps trying until the broker takes it (a storm may make it wait).
    void (async () => {
      for (let i = 0; i < locks.length; i++) {
        void locks[i]!.connect(false);
        if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, (50 / request.connectsPerSecond) * 1000));
      }
    })();
  } else if (request.type === 'status') {
    const message: FleetMessage = {
      type: 'status',
      connected: locks.filter((lock) => lock.connected).length,
      configured: locks.filter((lock) => (lock.configVersion ?? 0) > 0).length,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
      baselineMiB,
      connectedAfterMs: since.connectedAfterMs,
      errors: since.errors,
    };
    process.send!(message);
  } else if (request.type === 'mark') {
    since = { at: performance.now(), connectedAfterMs: [], errors: {} };
  } else {
    void Promise.all(locks.map((lock) => lock.close())).finally(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
