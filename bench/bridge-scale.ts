// The bridge with many locks (issue 26): BRIDGE_BENCH_ZWAVE Z-Wave nodes (one Z-Wave JS mock
// stack) and BRIDGE_BENCH_MATTER Matter locks (one matter.js virtual lock process each), default
// 50 and 50: the time until every lock is online to the service, then the memory and the CPU of
// the process running the bridge (with the broker and the service's link beside it) while idle.
// Not a test; heavy (each virtual Matter lock is a process). Run: node --import tsx bench/bridge-scale.ts
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { runBridge } from '../src/bridge/run-bridge.js';
import { startLockBroker } from '../src/lock-link/broker.js';
import { connectLockLink } from '../src/lock-link/client.js';
import { startVirtualMatterLock, type VirtualMatterLock } from '../test/helpers/matter-lock.js';
import { freeUdpPort } from '../test/helpers/ports.js';
import { startZwaveStack } from '../test/helpers/zwave-stack.js';

const ZWAVE_LOCKS = Number(process.env.BRIDGE_BENCH_ZWAVE ?? 50);
const MATTER_LOCKS = Number(process.env.BRIDGE_BENCH_MATTER ?? 50);
const logger = pino({ level: 'warn' });
const secrets = new Map<string, string>();
const broker = await startLockBroker({ port: 0, host: '127.0.0.1', logger, authenticateDevice: async (id, secret) => secrets.get(id) === secret });
const link = await connectLockLink({ broker: broker.local, replyTimeoutMs: 5000, logger });
await link.listen({ onPresence: () => undefined, onState: () => undefined, onEvent: () => undefined });
const newLock = () => {
  const id = randomUUID();
  const secret = randomBytes(16).toString('hex');
  secrets.set(id, secret);
  return { id, secret };
};

const nodes = Array.from({ length: ZWAVE_LOCKS }, (_, i) => i + 2);
const stack = ZWAVE_LOCKS > 0 ? await startZwaveStack(nodes) : null;
const virtualLocks: VirtualMatterLock[] = [];
for (let i = 0; i < MATTER_LOCKS; i++) virtualLocks.push(await startVirtualMatterLock());
const locks = [
  ...nodes.map((nodeId) => ({ ...newLock(), zwave: { nodeId } })),
  ...virtualLocks.map((lock) => ({ ...newLock(), matter: { pairingCode: lock.manualPairingCode, address: { ip: '127.0.0.1', port: Number(lock.address.split(':')[1]) } } })),
];
const dir = await mkdtemp(join(tmpdir(), 'latchkey-bench-scale-'));
const baseline = process.memoryUsage().rss;
const started = Date.now();
const bridge = runBridge({
  config: {
    mqttUrl: `mqtt://127.0.0.1:${broker.port}`, topicPrefix: 'locks', dataDir: dir, trustedRoot: null, lockReplyTimeoutMs: 5000,
    zwave: stack === null ? null : { url: stack.url, pingSeconds: 10 }, matter: { port: await freeUdpPort(), pingSeconds: 10 },
    locks, logLevel: 'warn',
  },
  logger,
});
while (!locks.every((lock) => link.isOnline(lock.id))) await new Promise((resolve) => setTimeout(resolve, 100));
console.log(`\nThe bridge with ${ZWAVE_LOCKS} Z-Wave and ${MATTER_LOCKS} Matter locks`);
console.log(`every lock online after            ${((Date.now() - started) / 1000).toFixed(1)} s (Matter ones paired on the way)`);
const cpuStart = process.cpuUsage();
const idleStart = Date.now();
await new Promise((resolve) => setTimeout(resolve, 30_000));
const idle = process.cpuUsage(cpuStart);
const rss = process.memoryUsage().rss;
console.log(`memory (RSS of this process)       ${(rss / 2 ** 20).toFixed(0)} MiB, ${((rss - baseline) / 2 ** 20).toFixed(0)} MiB more than before the bridge started`);
console.log(`CPU while idle (30 s: pings, keepalives) ${(((idle.user + idle.system) / 1000 / (Date.now() - idleStart)) * 100).toFixed(1)} % of one core`);
await bridge.close();
await stack?.stop();
for (const lock of virtualLocks) await lock.stop();
await link.close();
await broker.close();
await rm(dir, { recursive: true, force: true });
process.exit(0);
