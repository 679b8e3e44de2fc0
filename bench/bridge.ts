// Real doors (issue 26): the unlock round trip service → lock → confirmation, p50/p99, for the
// simulator, a Z-Wave lock (Z-Wave JS's mock stack behind a real Z-Wave JS Server, through the
// bridge) and a Matter lock (matter.js's virtual door lock, through the bridge's controller), in
// the same run; every command carries a real RS256 token the lock's edge verifies. Then the time
// from a lock coming back to its first successful unlock. The bridge with many locks:
// bench/bridge-scale.ts. Not a test. Run: node --import tsx bench/bridge.ts
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { SignJWT } from 'jose';
import pino from 'pino';
import type { LockConfig } from '../src/device-protocol/payloads.js';
import { runBridge, type RunningBridge } from '../src/bridge/run-bridge.js';
import { startLockBroker } from '../src/lock-link/broker.js';
import { connectLockLink } from '../src/lock-link/client.js';
import { runSimulator } from '../src/simulator/run-simulator.js';
import { startVirtualMatterLock, type VirtualMatterLock } from '../test/helpers/matter-lock.js';
import { freeUdpPort } from '../test/helpers/ports.js';
import { startZwaveStack } from '../test/helpers/zwave-stack.js';
import { percentile } from './lib.js';

const ROUNDS = 200;
const logger = pino({ level: 'warn' });
const secrets = new Map<string, string>();
const service = { username: `svc-${randomUUID()}`, password: randomBytes(16).toString('hex') };
const broker = await startLockBroker({ port: 0, host: '127.0.0.1', serviceCredentials: service, logger, authenticateDevice: async (id, secret) => secrets.get(id) === secret });
const mqttUrl = `mqtt://127.0.0.1:${broker.port}`;
const link = await connectLockLink({ broker: broker.local, replyTimeoutMs: 5000, logger });
await link.listen({ onPresence: () => undefined, onState: () => undefined, onEvent: () => undefined });

const user = generateKeyPairSync('rsa', { modulusLength: 2048 });
const userId = randomUUID();
const config: LockConfig = { version: 1, unlockDuration: 60, unlockBetween: null, users: [{ userId, publicKey: user.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), role: 'ADMIN', start: null, end: null }] };

const newLock = () => {
  const id = randomUUID();
  const secret = randomBytes(16).toString('hex');
  secrets.set(id, secret);
  return { id, secret };
};
const token = (lockId: string, locked: boolean) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ operation: { type: 'MUTATE_LOCK', locked } }).setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(userId).setSubject(lockId).setIssuedAt(now).setExpirationTime(now + 60).setJti(randomUUID()).sign(user.privateKey);
};
const until = async (check: () => boolean, what: string, withinMs = 120_000) => {
  const end = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
/** Sends the lock's config and waits until it is online and holds it (its state says the version). */
const prepare = async (lockId: string, holds: () => boolean) => {
  await until(() => link.isOnline(lockId), `${lockId} online`);
  await link.publishConfig(lockId, config);
  await until(holds, `${lockId} holds the config`);
};

/** ROUNDS unlock/lock pairs, each timed from send to the lock's confirmation. */
async function roundTrips(name: string, lockId: string): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const locked = i % 2 === 1;
    const signed = await token(lockId, locked);
    const start = process.hrtime.bigint();
    await link.sendCommand(lockId, signed, { type: 'MUTATE_LOCK', locked });
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  console.log(`${name.padEnd(34)} p50 ${percentile(samples, 50).toFixed(1)} ms   p99 ${percentile(samples, 99).toFixed(1)} ms   (${ROUNDS} commands)`);
}

/** Milliseconds from `back` resolving to the first unlock the lock confirms (tried every 20 ms). */
async function firstUnlockAfter(lockId: string, back: () => Promise<void>): Promise<number> {
  await back();
  const start = Date.now();
  for (;;) {
    try {
      await link.sendCommand(lockId, await token(lockId, false), { type: 'MUTATE_LOCK', locked: false });
      return Date.now() - start;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

const dir = await mkdtemp(join(tmpdir(), 'latchkey-bench-bridge-'));
const bridgeConfig = async (locks: Array<{ id: string; secret: string; zwave?: { nodeId: number }; matter?: { pairingCode: string; address: { ip: string; port: number } } }>, zwaveUrl: string | null, name: string) => ({
  mqttUrl, topicPrefix: 'locks', dataDir: join(dir, name), trustedRoot: null, lockReplyTimeoutMs: 5000,
  zwave: zwaveUrl === null ? null : { url: zwaveUrl, pingSeconds: 2 },
  matter: { port: await freeUdpPort(), pingSeconds: 2 },
  locks, logLevel: 'warn',
});
const matterAddress = (lock: VirtualMatterLock) => ({ ip: '127.0.0.1', port: Number(lock.address.split(':')[1]) });
const configOf = (bridge: RunningBridge, id: string) => () => bridge.status().find((s) => s.id === id)?.configVersion === 1;

console.log('\nUnlock round trip: service → lock → confirmation (each lock checks the token at its edge)');
const simulated = newLock();
const simulator = await runSimulator({ ...simulated, mqttUrl, stdin: new PassThrough(), stdout: new PassThrough() });
await prepare(simulated.id, () => simulator.lock.configVersion === 1);
await roundTrips('simulator', simulated.id);

const stack = await startZwaveStack([2]);
const matterLock = await startVirtualMatterLock();
const zwaveLock = { ...newLock(), zwave: { nodeId: 2 } };
const matterOne = { ...newLock(), matter: { pairingCode: matterLock.manualPairingCode, address: matterAddress(matterLock) } };
const bridge = runBridge({ config: await bridgeConfig([zwaveLock, matterOne], stack.url, 'one'), logger });
await prepare(zwaveLock.id, configOf(bridge, zwaveLock.id));
await roundTrips('Z-Wave (Z-Wave JS mock, bridge)', zwaveLock.id);
await prepare(matterOne.id, configOf(bridge, matterOne.id));
await roundTrips('Matter (matter.js virtual, bridge)', matterOne.id);

console.log('\nFrom a lock coming back to its first successful unlock');
await stack.act(2, { do: 'away' });
await until(() => !link.isOnline(zwaveLock.id), 'Z-Wave lock offline');
console.log(`Z-Wave lock back in range          ${await firstUnlockAfter(zwaveLock.id, () => stack.act(2, { do: 'back' }))} ms`);
await matterLock.stop();
await until(() => !link.isOnline(matterOne.id), 'Matter lock offline');
console.log(`Matter lock restarted              ${await firstUnlockAfter(matterOne.id, () => matterLock.start())} ms (from its process being ready)`);
await bridge.close();
await simulator.close();
await stack.stop();
await matterLock.stop();

await link.close();
await broker.close();
await rm(dir, { recursive: true, force: true });
process.exit(0);
