// Command round trip service → lock → service over the embedded broker: LockLink.sendCommand
// to an in-process lock that answers at once, 1000 commands one at a time (latency), then
// 5000 with 50 in flight (throughput); for each of the link's two transports: mqtt.js over TCP
// (as to an external broker) and the broker's own API (the service's link to its embedded broker).
// Not a test. Run: node --import tsx bench/link-roundtrip.ts
import { randomBytes, randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { connectAsync } from 'mqtt';
import pino from 'pino';
import { startLockBroker } from '../src/lock-link/broker.js';
import { connectLockLink } from '../src/lock-link/client.js';
import { percentile } from './lib.js';

const lockId = randomUUID();
const lockSecret = randomBytes(16).toString('hex');
const service = { username: `svc-${randomUUID()}`, password: randomBytes(16).toString('hex') };
const logger = pino({ level: 'warn' });

const broker = await startLockBroker({
  port: 0, host: '127.0.0.1', serviceCredentials: service, logger,
  authenticateDevice: async (id, secret) => id === lockId && secret === lockSecret,
});
const url = `mqtt://127.0.0.1:${broker.port}`;

// The lock: answers every command with ok and its state, as the protocol says.
const lock = await connectAsync(url, {
  clientId: lockId, username: lockId, password: lockSecret, protocolVersion: 4,
  will: { topic: `locks/${lockId}/online`, payload: Buffer.from('{"online":false}'), qos: 1, retain: true },
}, false);
(lock.stream as Socket).setNoDelay(true);
lock.on('message', (_topic, payload) => {
  const { id } = JSON.parse(payload.toString()) as { id: string };
  lock.publish(`locks/${lockId}/reply`, JSON.stringify({ id, ok: true, state: { locked: false, ts: Date.now() / 1000 } }), { qos: 1 });
});
await lock.subscribeAsync(`locks/${lockId}/command`, { qos: 1 });
await lock.publishAsync(`locks/${lockId}/online`, '{"online":true}', { qos: 1, retain: true });

const transports = [
  { name: 'mqtt.js over TCP', broker: url, ...service },
  { name: 'broker\'s own API', broker: broker.local },
];
const token = 'x'.repeat(900); // about the size of an RS256 operation token
const operation = { type: 'MUTATE_LOCK', locked: false };

for (const { name, ...connection } of transports) {
  const link = await connectLockLink({ ...connection, replyTimeoutMs: 5000, logger });
  await link.listen({ onPresence: () => undefined, onState: () => undefined, onEvent: () => undefined });
  while (!link.isOnline(lockId)) await new Promise((resolve) => setTimeout(resolve, 5));
  const once = () => link.sendCommand(lockId, token, operation);

  for (let i = 0; i < 200; i++) await once();
  const samples: number[] = [];
  // CPU time too: on a shared machine the wall clock partly measures the neighbours.
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < 1000; i++) {
    const start = process.hrtime.bigint();
    await once();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const cpu = process.cpuUsage(cpuStart);
  const cpuPerTrip = (cpu.user + cpu.system) / 1000;
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((sum, x) => sum + x, 0) / samples.length;
  console.log(`${name}: link round trip, sequential (1000)   p50 ${percentile(samples, 50).toFixed(3)} ms   p99 ${percentile(samples, 99).toFixed(3)} ms   mean ${mean.toFixed(3)} ms   max ${samples.at(-1)!.toFixed(3)} ms   CPU ${cpuPerTrip.toFixed(0)} µs/trip (broker, link and lock together)`);

  const total = 5000;
  const inFlight = 50;
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < total) {
      next += 1;
      await once();
    }
  }));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`${name}: link round trip, ${inFlight} in flight (${total})   ${(total / seconds).toFixed(0)} commands/s`);
  await link.close();
}

await lock.endAsync();
await broker.close();
