// Fleet scale (issue 33 point 1): FLEET_LOCKS simulated locks (default 1000; a list such as
// 1000,5000 runs each in turn) connect to one instance with the embedded broker. The locks are
// real SimulatedLocks (src/lock-edge/), all in one load-generator process (bench/fleet-locks.ts);
// the service is its own process (bench/unlock-service.ts: SQLite, embedded broker), every lock
// provisioned and claimed by one user, so each gets its config. Prints, beside the goals: the
// service's memory per connected lock, its CPU while every lock idles, the time until every lock
// is online again after the service restarts (the reconnect storm, each lock's retained config
// delivered again and reconciled), how soon after the restart the locks came back (50/90/99/100 %)
// and the connection errors they saw meanwhile, and the unlock p50/p99 of one lock while the storm
// runs (an unlock every FLEET_UNLOCK_EVERY_MS, default 100; a 503 while that lock is not back).
// Memory is read after a full collection (the service runs with --expose-gc).
// The locks connect from many loopback addresses (bench/fleet-locks.ts; FLEET_ONE_ADDRESS=1 for
// one), as a real fleet does. Each side holds a socket per lock: the bench says so and stops when a
// process may not open that many files (`ulimit -n`). FLEET_PROFILE=DIR records a CPU profile of
// the restarted service, start-up and storm (bench/profile-summary.ts DIR/*.cpuprofile);
// FLEET_LOADGEN_PROFILE=DIR one of each load-generator process, its whole life.
// Not a test. Run: npm run bench -- fleet   (FLEET_LOCKS=1000,5000 npm run bench -- fleet)
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateEphemeralKey, requestCertificate, signOperation } from '../src/client/index.js';
import { freePort } from '../test/helpers/ports.js';
import type { FleetMessage, FleetRequest } from './fleet-locks.js';
import { percentile } from './lib.js';
import { cpuSecondsOf, startServiceProcess, type ServiceProcess } from './unlock-processes.js';

const SIZES = (process.env.FLEET_LOCKS ?? '1000').split(',').map(Number);
const IDLE_SECONDS = Number(process.env.FLEET_IDLE_S ?? 20);
const GOAL = { onlineAfterRestartS: 60, unlockP99Ms: 250 };
const UNLOCK_EVERY_MS = Number(process.env.FLEET_UNLOCK_EVERY_MS ?? 100);
const PROFILE_DIR = process.env.FLEET_PROFILE;
/** Files this process (and the children it starts) may open: a socket per lock on each side. */
const openFilesLimit = Number(/Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? Infinity);
const root = new URL('..', import.meta.url).pathname;

const describeErrors = (errors: Record<string, number>) => Object.entries(errors).sort((a, b) => b[1] - a[1]).map(([kind, n]) => `${n}× ${kind}`).join('; ') || 'none';
const line = (what: string, figure: string, goal: string) => console.log(`${what.padEnd(50)} ${figure.padEnd(30)} ${goal}`);
/** Waits for `check`; says `progress()` every 30 s, and in the error when it gives up. */
async function until(check: () => Promise<boolean>, what: string, withinMs: number, progress: () => string): Promise<void> {
  const start = Date.now();
  let told = start;
  while (!(await check())) {
    if (Date.now() - start > withinMs) throw new Error(`${what}: not within ${withinMs / 1000} s (${progress()})`);
    if (Date.now() - told > 30_000) {
      told = Date.now();
      console.log(`  … after ${((told - start) / 1000).toFixed(0)} s: ${progress()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Locks per load-generator process: each is one event loop, and on a busy machine one loop for 20,000 locks fell behind their CONNACKs. */
const LOCKS_PER_PROCESS = Number(process.env.FLEET_LOCKS_PER_PROCESS ?? 2500);
/** The first connection is paced (it is not what the goals measure); the storm after a restart is not. */
const FIRST_CONNECTS_PER_SECOND = Number(process.env.FLEET_FIRST_CONNECTS_PER_SECOND ?? 500);

/** The load generator: `locks` SimulatedLocks in processes of LOCKS_PER_PROCESS each, seen as one. */
function startFleet(mqttUrl: string, rootCertificate: string, locks: Array<{ id: string; secret: string }>) {
  const children: ChildProcess[] = [];
  const processes = Math.ceil(locks.length / LOCKS_PER_PROCESS);
  for (let i = 0; i < processes; i++) {
    const child: ChildProcess = fork(join(root, 'bench/fleet-locks.ts'), [], { execArgv: ['--import', 'tsx', '--max-old-space-size=8192', ...(process.env.FLEET_LOADGEN_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.FLEET_LOADGEN_PROFILE] : [])], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const share = locks.slice(i * LOCKS_PER_PROCESS, (i + 1) * LOCKS_PER_PROCESS);
    child.send({ type: 'start', mqttUrl, rootCertificate, locks: share, firstAddress: i * 16_384, connectsPerSecond: FIRST_CONNECTS_PER_SECOND / processes } satisfies FleetRequest);
    child.on('exit', (code, signal) => {
      if (code !== 0) console.log(`  (a load generator exited: ${code ?? signal})`);
    });
    children.push(child);
  }
  const ask = (child: ChildProcess) => new Promise<FleetMessage>((resolve) => {
    child.once('message', (message: FleetMessage) => resolve(message));
    child.send({ type: 'status' } satisfies FleetRequest);
  });
  return {
    pids: children.map((child) => child.pid!),
    async status(): Promise<FleetMessage> {
      const all = await Promise.all(children.map(ask));
      const sum = (field: 'connected' | 'configured' | 'rssMiB' | 'baselineMiB') => all.reduce((total, message) => total + message[field], 0);
      const errors: Record<string, number> = {};
      for (const message of all) for (const [kind, n] of Object.entries(message.errors)) errors[kind] = (errors[kind] ?? 0) + n;
      return {
        type: 'status', connected: sum('connected'), configured: sum('configured'), rssMiB: sum('rssMiB'), baselineMiB: sum('baselineMiB'),
        connectedAfterMs: all.flatMap((message) => message.connectedAfterMs).sort((a, b) => a - b), errors,
      };
    },
    /** Starts counting connections and errors afresh (FleetMessage). */
    mark: () => { for (const child of children) child.send({ type: 'mark' } satisfies FleetRequest); },
    stop: () => Promise.all(children.map((child) => new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.send({ type: 'stop' } satisfies FleetRequest);
    }))).then(() => undefined),
  };
}

async function run(count: number): Promise<void> {
  if (count + 200 > openFilesLimit) throw new Error(`a process may open ${openFilesLimit} files here, and each side needs one per lock: raise it (ulimit -n ${count + 1000}) first`);
  const dataDir = await mkdtemp(join(tmpdir(), 'latchkey-bench-fleet-'));
  const mqttPort = await freePort();
  const env = { CERT_CHECK: 'never', LOG_LEVEL: 'error', DATA_DIR: dataDir, MQTT_PORT: String(mqttPort) };
  let service: ServiceProcess = await startServiceProcess(env, ['--expose-gc']);
  const post = (path: string, body: string, token?: string, contentType = 'application/json') =>
    fetch(service.url + path, { method: 'POST', headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) }, body });
  const { authToken } = (await (await post('/auth/register', JSON.stringify({ email: `fleet-${Date.now()}@example.com`, password: 'correct horse battery' }))).json()) as { authToken: string };
  const userId = JSON.parse(Buffer.from(authToken.split('.')[1]!, 'base64url').toString()).sub as string;
  const key = generateEphemeralKey();
  const certificate = await requestCertificate(service.url, authToken, key);
  if ('needsVerification' in certificate) throw new Error('CERT_CHECK=never expected');

  console.log(`\nFleet: ${count} simulated locks, one instance with the embedded broker (provisioning and claiming…)`);
  const locks: Array<{ id: string; secret: string }> = [];
  for (let i = 0; i < count; i++) {
    const lock = await service.ask({ type: 'provision', name: `Door ${i}` }, 'provisioned');
    locks.push({ id: lock.id, secret: lock.secret });
    const claim = await post('/device', JSON.stringify({ key: lock.registrationKey, name: `Door ${i}` }), authToken);
    if (claim.status !== 200) throw new Error(`claim ${i} failed: ${claim.status} ${await claim.text()}`);
  }
  /** How long the bench waits for every lock: 10 minutes, or 50 ms a lock for the larger fleets on a busy machine. */
  const patienceMs = Math.max(600_000, count * 50);
  let lastOnline = 0;
  const online = async () => (lastOnline = (await service.ask({ type: 'online' }, 'online')).online);
  const progress = () => `${lastOnline} of ${count} online to the service; the locks: ${fleetStatus?.connected ?? '?'} connected, ${fleetStatus?.configured ?? '?'} holding a config`;
  const memoryBefore = await service.ask({ type: 'memory' }, 'memory');
  const started = Date.now();
  const fleet = startFleet(`mqtt://127.0.0.1:${mqttPort}`, service.rootCertificate, locks);
  let fleetStatus: FleetMessage | undefined;
  try {
    const allBack = async () => {
      const now = await online();
      fleetStatus = await fleet.status();
      return now === count && fleetStatus.connected === count && fleetStatus.configured === count;
    };
    await until(allBack, 'every lock online with its config', patienceMs, progress);
    line('every lock online with its config, first connection', `${((Date.now() - started) / 1000).toFixed(1)} s`, '');

    const cpuFrom = cpuSecondsOf(service.pid);
    const idleFrom = Date.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idleCpu = ((cpuSecondsOf(service.pid) - cpuFrom) / ((Date.now() - idleFrom) / 1000)) * 100;
    const memoryAfter = await service.ask({ type: 'memory' }, 'memory');
    fleetStatus = await fleet.status();
    const perLockKiB = (field: 'rssMiB' | 'heapUsedMiB' | 'externalMiB') => (((memoryAfter[field] - memoryBefore[field]) * 1024) / count).toFixed(1);
    line(`service CPU while ${count} locks idle (${IDLE_SECONDS} s)`, `${idleCpu.toFixed(1)} % of a core`, '');
    line('service memory (RSS) before the locks → with them', `${memoryBefore.rssMiB.toFixed(0)} → ${memoryAfter.rssMiB.toFixed(0)} MiB (after a full GC)`, '');
    line('service memory per connected lock: RSS', `${perLockKiB('rssMiB')} KiB`, 'goal: written down and justified (docs/scaling.md)');
    line('  of which JavaScript heap / buffers outside it', `${perLockKiB('heapUsedMiB')} / ${perLockKiB('externalMiB')} KiB`, '');
    line('load generator memory per lock (client side)', `${(((fleetStatus.rssMiB - fleetStatus.baselineMiB) * 1024) / count).toFixed(1)} KiB`, '');

    // The reconnect storm: the service goes away and comes back on the same ports and data.
    const stopped = Date.now();
    await service.stop();
    const stopMs = Date.now() - stopped;
    const fleetCpu = () => fleet.pids.reduce((total, pid) => total + cpuSecondsOf(pid), 0);
    const fleetCpuFrom = fleetCpu();
    fleet.mark();
    service = await startServiceProcess(env, PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []);
    const up = Date.now();
    const startCpu = cpuSecondsOf(service.pid);
    const whileDown = await fleet.status();
    fleet.mark();
    line('service start (from the stop until it serves)', `${((up - stopped) / 1000).toFixed(1)} s`, '');
    line('  the old one\'s stop / modules loaded / the service started', `${(stopMs / 1000).toFixed(1)} / ${(service.loadedMs / 1000).toFixed(1)} / ${(service.startedMs / 1000).toFixed(1)} s`, '');
    line('  connected before it served / errors while down', `${whileDown.connectedAfterMs.length} / ${describeErrors(whileDown.errors)}`, '');
    const measured = locks[0]!.id;
    const samples: number[] = [];
    let failures = 0;
    let storming = true;
    // One unlock every UNLOCK_EVERY_MS at most (a person at a door, not a load test): the figure is
    // the storm's effect on an unlock, not the unlocks' effect on the storm.
    const unlocking = (async () => {
      while (storming) {
        const paced = new Promise((resolve) => setTimeout(resolve, UNLOCK_EVERY_MS));
        const token = signOperation({ key, certificateChain: certificate.certificateChain, userId, lockId: measured, operation: { type: 'MUTATE_LOCK', locked: false } });
        const start = performance.now();
        const res = await post(`/device/${measured}/execute`, token, authToken, 'application/json;charset=UTF-8');
        await res.arrayBuffer();
        if (res.status === 200) samples.push(performance.now() - start);
        else if (res.status !== 503) failures += 1;
        await paced;
      }
    })();
    await until(allBack, 'every lock online again', patienceMs, progress);
    const stormS = (Date.now() - up) / 1000;
    const serviceCpu = cpuSecondsOf(service.pid);
    const fleetCpuUsed = fleetCpu() - fleetCpuFrom;
    storming = false;
    await unlocking;
    samples.sort((a, b) => a - b);
    line('every lock online again after a service restart', `${stormS.toFixed(1)} s (${((Date.now() - stopped) / 1000).toFixed(1)} s from the stop)`, `goal ≤ ${GOAL.onlineAfterRestartS} s (at 20k)`);
    line('one lock\'s unlocks during the storm, p50 / p99', samples.length === 0 ? 'none' : `${percentile(samples, 50).toFixed(0)} / ${percentile(samples, 99).toFixed(0)} ms (${samples.length})`, `goal p99 < ${GOAL.unlockP99Ms} ms`);
    const back = fleetStatus!.connectedAfterMs;
    line('  locks back after it served: 50 / 90 / 99 / 100 %', [50, 90, 99, 100].map((p) => `${(percentile(back, p) / 1000).toFixed(1)}`).join(' / ') + ` s (${back.length} connections)`, '');
    line('  connection errors the locks saw in the storm', describeErrors(fleetStatus!.errors), '');
    line('unlocks failed during the storm (not 200 nor 503)', String(failures), '0');
    const stormCpu = serviceCpu - startCpu;
    line('service CPU: its start / the storm', `${startCpu.toFixed(1)} / ${stormCpu.toFixed(1)} s (${((stormCpu / stormS) * 100).toFixed(0)} % of a core)`, '');
    line('  the storm\'s service CPU per lock back (unlocks included)', `${((stormCpu / count) * 1000).toFixed(2)} ms`, `≤ ${((60 / 20_000) * 1000).toFixed(1)} ms for 20k in 60 s on one core`);
    line('CPU during the storm: load generator', `${fleetCpuUsed.toFixed(1)} s (${((fleetCpuUsed / stormS) * 100).toFixed(0)} % of a core)`, '');
    line('load average (1 min) at the end of the storm', readFileSync('/proc/loadavg', 'utf8').split(' ')[0]!, '2 cores, shared');
  } finally {
    await fleet.stop();
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

for (const count of SIZES) {
  try {
    await run(count);
  } catch (err) {
    console.log(`${count} locks: ${err instanceof Error ? err.message : String(err)}`);
  }
}
process.exit(0);
