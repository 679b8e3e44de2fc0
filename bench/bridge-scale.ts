// The bridge with many locks (issue 26 point 8): BRIDGE_BENCH_ZWAVE Z-Wave nodes on one Z-Wave JS
// mock controller behind one Z-Wave JS Server, and BRIDGE_BENCH_MATTER matter.js virtual door
// locks in one process (each its own ServerNode, UDP port and storage), default 50 and 50. The
// bridge runs as it would on site, `latchkey bridge --config FILE` in a process of its own (the
// compiled CLI when `npm run build` has made dist/, else through tsx, which is said), so its
// memory and CPU are its own: read from /proc. Measured: the time until every lock is online to
// the service after a first start (the Matter locks paired on the way) and after a restart
// (already paired); memory and CPU while idle; one unlock of every lock, each checked at the
// edge. Beside each figure, its goal: a bridge for a building's 100 doors on a small on-site box
// (a Raspberry Pi class computer with 1 GB).
// Not a test. Run: npm run bench -- bridge-scale   (or node --import tsx bench/bridge-scale.ts)
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import pino from 'pino';
import type { LockConfig } from '../src/device-protocol/payloads.js';
import { startLockBroker } from '../src/lock-link/broker.js';
import { connectLockLink } from '../src/lock-link/client.js';
import { startVirtualMatterLocks } from '../test/helpers/matter-lock.js';
import { freeUdpPort } from '../test/helpers/ports.js';
import { startZwaveStack } from '../test/helpers/zwave-stack.js';
import { percentile } from './lib.js';

const ZWAVE_LOCKS = Number(process.env.BRIDGE_BENCH_ZWAVE ?? 50);
const MATTER_LOCKS = Number(process.env.BRIDGE_BENCH_MATTER ?? 50);
const IDLE_SECONDS = Number(process.env.BRIDGE_BENCH_IDLE_S ?? 30);
/** The goals, for 100 locks; scaled by the locks there are for memory. */
const GOAL = { firstOnlineS: 60, restartOnlineS: 30, rssMiB: 400, idleCpuPercent: 5, unlockP99Ms: 2000 };

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = join(root, 'dist/cli/main.js');
const logger = pino({ level: 'warn' });
const secrets = new Map<string, string>();
const broker = await startLockBroker({ port: 0, host: '127.0.0.1', logger, authenticateDevice: async (id, secret) => secrets.get(id) === secret });
const link = await connectLockLink({ broker: broker.local, replyTimeoutMs: 5000, logger });
const held = new Map<string, number | null>();
await link.listen({ onPresence: () => undefined, onState: () => undefined, onEvent: () => undefined, onConfigVersion: (id, version) => void held.set(id, version) });

const user = generateKeyPairSync('rsa', { modulusLength: 2048 });
const userId = randomUUID();
const lockConfig: LockConfig = { version: 1, unlockDuration: 60, unlockBetween: null, users: [{ userId, publicKey: user.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'), role: 'ADMIN', start: null, end: null }] };
const token = (lockId: string, locked: boolean) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ operation: { type: 'MUTATE_LOCK', locked } }).setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(userId).setSubject(lockId).setIssuedAt(now).setExpirationTime(now + 60).setJti(randomUUID()).sign(user.privateKey);
};
const until = async (check: () => boolean, what: string, withinMs = 300_000) => {
  const end = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const dir = await mkdtemp(join(tmpdir(), 'latchkey-bench-scale-'));
let bridge: ChildProcess | null = null;
let stack: Awaited<ReturnType<typeof startZwaveStack>> | null = null;
let matterDevices: Awaited<ReturnType<typeof startVirtualMatterLocks>> | null = null;
/** Ends every process this bench started (also when it fails), then this one. */
async function finish(code: number): Promise<never> {
  if (bridge !== null) await stopBridge(bridge);
  await stack?.stop();
  await matterDevices?.stop();
  await link.close();
  await broker.close();
  await rm(dir, { recursive: true, force: true });
  process.exit(code);
}

console.log(`\nThe bridge with ${ZWAVE_LOCKS} Z-Wave and ${MATTER_LOCKS} Matter locks (starting the virtual locks…)`);
const nodes = Array.from({ length: ZWAVE_LOCKS }, (_, i) => i + 2);
stack = ZWAVE_LOCKS > 0 ? await startZwaveStack(nodes) : null;
matterDevices = MATTER_LOCKS > 0 ? await startVirtualMatterLocks(MATTER_LOCKS) : null;
const locks: Array<{ id: string; secretFile: string; zwave?: { nodeId: number }; matter?: { pairingCode: string; address: string } }> = [];
const addLock = async (how: { zwave: { nodeId: number } } | { matter: { pairingCode: string; address: string } }) => {
  const id = randomUUID();
  const secret = randomBytes(16).toString('hex');
  secrets.set(id, secret);
  await writeFile(join(dir, `${id}.secret`), `${secret}\n`, { mode: 0o600 });
  locks.push({ id, secretFile: `${id}.secret`, ...how });
};
for (const nodeId of nodes) await addLock({ zwave: { nodeId } });
for (const device of matterDevices?.locks ?? []) await addLock({ matter: { pairingCode: device.manualPairingCode, address: device.address } });
const configFile = join(dir, 'bridge.json');
await writeFile(configFile, JSON.stringify({
  mqttUrl: `mqtt://127.0.0.1:${broker.port}`, dataDir: 'data', lockReplyTimeoutMs: 5000,
  ...(stack === null ? {} : { zwave: { url: stack.url, pingSeconds: 10 } }),
  matter: { port: await freeUdpPort(), pingSeconds: 10 },
  locks,
}));

/** The bridge as its own process, as `latchkey bridge` runs on site. */
function startBridge(): ChildProcess {
  const args = existsSync(compiled) ? [compiled] : ['--import', 'tsx', join(root, 'src/cli/main.ts')];
  // BRIDGE_BENCH_LOG=info (or debug) shows the bridge's log.
  const level = process.env.BRIDGE_BENCH_LOG ?? 'warn';
  return spawn(process.execPath, [...args, 'bridge', '--config', configFile], { cwd: root, env: { ...process.env, LOG_LEVEL: level }, stdio: ['ignore', level === 'warn' ? 'ignore' : 'inherit', 'inherit'] });
}
/** CPU seconds (user + system) the process has used, and its resident memory now and at its peak, MiB. */
async function usage(pid: number): Promise<{ cpuS: number; rssMiB: number; peakMiB: number }> {
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  // Fields 14 and 15 of /proc/PID/stat (utime, stime), in clock ticks of 1/100 s; the slice starts at field 3.
  return { cpuS: (Number(stat[11]) + Number(stat[12])) / 100, rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}
async function stopBridge(running: ChildProcess): Promise<void> {
  bridge = null;
  if (running.exitCode !== null) return;
  const exited = once(running, 'exit');
  running.kill('SIGTERM');
  await exited;
}
const allOnline = () => locks.every((lock) => link.isOnline(lock.id));
/** Waits until every lock is online; says when each kind's last one came, seconds from `from`. */
async function untilOnline(from: number): Promise<{ zwave: number; matter: number; all: number }> {
  const when = { zwave: NaN, matter: NaN, all: NaN };
  const kindOnline = (kind: 'zwave' | 'matter') => locks.every((lock) => (kind in lock ? link.isOnline(lock.id) : true));
  let told = Date.now();
  await until(() => {
    for (const kind of ['zwave', 'matter'] as const) if (Number.isNaN(when[kind]) && kindOnline(kind)) when[kind] = (Date.now() - from) / 1000;
    if (Date.now() - told > 30_000) {
      told = Date.now();
      console.log(`  … ${locks.filter((lock) => link.isOnline(lock.id)).length} of ${locks.length} online after ${((told - from) / 1000).toFixed(0)} s`);
    }
    return allOnline();
  }, 'every lock online', 600_000);
  when.all = (Date.now() - from) / 1000;
  return when;
}
const online = (when: { zwave: number; matter: number }) => `(Z-Wave ${when.zwave.toFixed(1)} s, Matter ${when.matter.toFixed(1)} s)`;
const allOffline = () => locks.every((lock) => !link.isOnline(lock.id));
const line = (what: string, figure: string, goal: string) => console.log(`${what.padEnd(44)} ${figure.padEnd(40)} goal ${goal}`);

try {
  console.log(`bridge: ${existsSync(compiled) ? 'dist/cli/main.js' : 'src/cli/main.ts through tsx (run `npm run build` for the compiled CLI)'}`);
  bridge = startBridge();
  const first = await untilOnline(Date.now());
  const startUsage = await usage(bridge.pid!);
  line('every lock online, first start (pairing)', `${first.all.toFixed(1)} s ${online(first)}`, `≤ ${GOAL.firstOnlineS} s`);
  line('CPU used to get there', `${startUsage.cpuS.toFixed(1)} s of a core`, '-');

  const idleFrom = await usage(bridge.pid!);
  const idleStart = Date.now();
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const idleTo = await usage(bridge.pid!);
  const idlePercent = ((idleTo.cpuS - idleFrom.cpuS) / ((Date.now() - idleStart) / 1000)) * 100;
  line(`CPU while idle (${IDLE_SECONDS} s: pings, keepalives)`, `${idlePercent.toFixed(1)} % of a core`, `≤ ${GOAL.idleCpuPercent} %`);
  line('memory (RSS of the bridge), idle', `${idleTo.rssMiB.toFixed(0)} MiB`, `≤ ${GOAL.rssMiB} MiB`);
  line('memory at its peak so far', `${idleTo.peakMiB.toFixed(0)} MiB`, '-');

  // Every lock gets its config (as the service would publish it), then one unlock each, one after another.
  for (const lock of locks) await link.publishConfig(lock.id, lockConfig);
  await until(() => locks.every((lock) => held.get(lock.id) === 1), 'every lock holds the config');
  const samples: Record<'zwave' | 'matter', number[]> = { zwave: [], matter: [] };
  let failed = 0;
  for (const lock of locks) {
    const signed = await token(lock.id, false);
    const start = process.hrtime.bigint();
    try {
      await link.sendCommand(lock.id, signed, { type: 'MUTATE_LOCK', locked: false });
      samples[lock.zwave ? 'zwave' : 'matter'].push(Number(process.hrtime.bigint() - start) / 1e6);
    } catch {
      failed += 1;
    }
  }
  for (const kind of ['zwave', 'matter'] as const) {
    const sorted = samples[kind].sort((a, b) => a - b);
    if (sorted.length === 0) continue;
    line(`one unlock of each ${kind === 'zwave' ? 'Z-Wave' : 'Matter'} lock, p50 / p99`, `${percentile(sorted, 50).toFixed(0)} / ${percentile(sorted, 99).toFixed(0)} ms`, `p99 ≤ ${GOAL.unlockP99Ms} ms`);
  }
  line('unlocks refused or not answered', String(failed), '0');
  const afterUnlocks = await usage(bridge.pid!);
  line('memory after the unlocks (peak)', `${afterUnlocks.rssMiB.toFixed(0)} MiB (${afterUnlocks.peakMiB.toFixed(0)} MiB)`, `≤ ${GOAL.rssMiB} MiB`);

  await stopBridge(bridge);
  await until(allOffline, 'every lock offline after the bridge stopped', 30_000);
  bridge = startBridge();
  const again = await untilOnline(Date.now());
  line('every lock online, restart (already paired)', `${again.all.toFixed(1)} s ${online(again)}`, `≤ ${GOAL.restartOnlineS} s`);
  const restartUsage = await usage(bridge.pid!);
  line('memory after the restart', `${restartUsage.rssMiB.toFixed(0)} MiB`, `≤ ${GOAL.rssMiB} MiB`);
} catch (err) {
  console.error(err);
  await finish(1);
}
await finish(0);
