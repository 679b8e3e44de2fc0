// The load generator of bench/fleet.ts: many simulated locks in this one process, each a real
// SimulatedLock (src/simulator/, on src/lock-edge/: its own MQTT connection with its will,
// presence, retained config, every command checked at its edge), so thousands of locks need no
// thousands of processes. Forked with an IPC channel; `{ type: 'start', mqttUrl, rootCertificate,
// locks: [{ id, secret }] }` (too long for argv at 5,000 locks) connects them all at once;
// `{ type: 'status' }` is answered with how many are connected and how many hold a config,
// `{ type: 'stop' }` by closing them.
// Not a benchmark by itself.
import { SimulatedLock } from '../src/simulator/simulated-lock.js';

export type FleetRequest = ({ type: 'start' } & FleetOptions) | { type: 'status' } | { type: 'stop' };
/** `rssMiB`: this process's resident memory now; `baselineMiB`: before it made any lock. */
export type FleetMessage = { type: 'status'; connected: number; configured: number; rssMiB: number; baselineMiB: number };

interface FleetOptions { mqttUrl: string; rootCertificate: string; locks: Array<{ id: string; secret: string }> }
const baselineMiB = process.memoryUsage().rss / 2 ** 20;
const locks: SimulatedLock[] = [];

process.on('message', (request: FleetRequest) => {
  if (request.type === 'start') {
    for (const { id, secret } of request.locks) {
      locks.push(new SimulatedLock({
        id, secret, mqttUrl: request.mqttUrl, replyDelayMs: 0, trustedRoot: request.rootCertificate,
        now: () => Date.now() / 1000, log: () => undefined,
      }));
    }
    // As real locks: each keeps trying until the broker takes it (a storm may make it wait).
    for (const lock of locks) void lock.connect(false);
  } else if (request.type === 'status') {
    const message: FleetMessage = {
      type: 'status',
      connected: locks.filter((lock) => lock.connected).length,
      configured: locks.filter((lock) => (lock.configVersion ?? 0) > 0).length,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
      baselineMiB,
    };
    process.send!(message);
  } else {
    void Promise.all(locks.map((lock) => lock.close())).finally(() => process.exit(0));
  }
});
process.on('disconnect', () => process.exit(0));
