// Unlock end to end: HTTP → token and chain verification → replay store → MQTT → simulated lock
// (which verifies the token again) → reply → audit → 200. Three processes, as in production:
// the service (SQLite, embedded broker; bench/unlock-service.ts), the lock (`latchkey lock
// simulate`) and this one, the load generator. Tokens are EdDSA, pre-signed, each with its own jti.
//
// Prints p50/p99 at a fixed 100 unlocks/s for 10 s (evenly spaced, over node:http keep-alive:
// autocannon's rate limit sends each second's quota in a burst), throughput with 20, 50 and 100
// requests in flight (autocannon; every unlock waits for a round trip through the lock process,
// so 20 in flight cannot fill the machine), the CPU each process used per unlock, and one core's
// Ed25519 verifications per second with the best peak's ratio to it (issue 5's target: 40 %), and
// the service's CPU per unlock at that peak in Ed25519 verifications (issue 17 §6's target: ≤ 3).
// Not a test. Run: node --import tsx bench/unlock.ts
// Env: UNLOCK_BENCH_CONCURRENCY=20,50,100 (the levels tried); UNLOCK_BENCH_PROFILE=DIR records
// CPU profiles of the service during each phase, DIR/service-fixed.cpuprofile and
// DIR/service-peak-N.cpuprofile (summarise them with bench/profile-summary.ts);
// UNLOCK_BENCH_PERF=DIR records each peak with Linux perf (the CPU really used, every thread),
// DIR/service-peak-N.perf.data, and prints its split by area (bench/perf-summary.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateEphemeralKey, requestCertificate, signOperation } from '../src/client/index.js';
import { ed25519VerificationsPerSecond, percentile } from './lib.js';
import { printPerfSummary, recordPerf } from './perf-summary.js';
import { cpuSecondsOf, startServiceProcess, startSimulatorProcess } from './unlock-processes.js';

const RATE = 100;
const FIXED_SECONDS = 10;
const PEAK_SECONDS = 8;
const CONCURRENCIES = (process.env.UNLOCK_BENCH_CONCURRENCY ?? '20,50,100').split(',').map(Number);
const PROFILE_DIR = process.env.UNLOCK_BENCH_PROFILE;
const PERF_DIR = process.env.UNLOCK_BENCH_PERF;
const TARGET_SHARE = 0.4;
/** Issue 17 §6: the service's CPU per unlock at peak, in Ed25519 verifications measured in the same run. */
const TARGET_VERIFIES = 3;

const dataDir = await mkdtemp(join(tmpdir(), 'latchkey-bench-unlock-'));
const service = await startServiceProcess({ CERT_CHECK: 'never', LOG_LEVEL: 'error' }, PERF_DIR ? ['--perf-basic-prof'] : []);
const base = service.url;

async function post(path: string, body: string, token?: string, contentType = 'application/json'): Promise<Response> {
  return fetch(base + path, { method: 'POST', headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) }, body });
}

// Set-up over HTTP: a user with a certified ephemeral key, owning one lock run by the simulator.
const registered = (await (await post('/auth/register', JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: 'correct horse battery' }))).json()) as { authToken: string };
const authToken = registered.authToken;
const userId = JSON.parse(Buffer.from(authToken.split('.')[1]!, 'base64url').toString()).sub as string;
const key = generateEphemeralKey();
const certificate = await requestCertificate(base, authToken, key);
if ('needsVerification' in certificate) throw new Error('CERT_CHECK=never expected');
const provisioned = await service.ask({ type: 'provision', name: 'Bench door' }, 'provisioned');
const claim = await post('/device', JSON.stringify({ key: provisioned.registrationKey, name: 'Bench door' }), authToken);
if (claim.status !== 200) throw new Error(`claim failed: ${claim.status}`);
const simulator = await startSimulatorProcess({ id: provisioned.id, secret: provisioned.secret, mqttPort: service.mqttPort, rootCertificate: service.rootCertificate, dataDir });
// Should this process fail half-way, the other two must not outlive it.
process.once('exit', () => {
  for (const pid of [simulator.pid, service.pid]) {
    try {
      process.kill(pid);
    } catch {
      // already gone
    }
  }
});

const unlockToken = () => signOperation({ key, certificateChain: certificate.certificateChain, userId, lockId: provisioned.id, operation: { type: 'MUTATE_LOCK', locked: false } });
const executePath = `/device/${provisioned.id}/execute`;
const executeHeaders = { 'content-type': 'application/json;charset=UTF-8', authorization: `Bearer ${authToken}` };
const { hostname, port } = new URL(base);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** One unlock over a kept-alive connection; its latency in ms, or null when it failed. */
function timedUnlock(token: string): Promise<number | null> {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = request({ hostname, port, path: executePath, method: 'POST', agent, headers: executeHeaders }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : null));
    });
    req.on('error', () => resolve(null));
    req.end(token);
  });
}

// Wait for the lock to be online with a configuration listing the user (starting the simulator
// from the sources takes seconds on a busy machine), then warm up: 3,000 unlocks, 30 at a time,
// so that V8 has optimised the hot path before the fixed rate is measured (after 200 one at a
// time, perf still found the fixed phase compiling and running baseline code: ≈ 2 ms per unlock).
for (let attempt = 0; (await timedUnlock(unlockToken())) === null; attempt++) {
  if (attempt > 600) throw new Error(`the simulated lock never accepted an unlock (30 s): ${await simulator.diagnose()}`);
  await new Promise((resolve) => setTimeout(resolve, 50));
}
await Promise.all(Array.from({ length: 30 }, async () => {
  for (let i = 0; i < 100; i++) await timedUnlock(unlockToken());
}));

interface CpuPerUnlock { service: number; lock: number; client: number }

/** Starts counting the CPU time of the three processes; the function returned divides it by `unlocks` (µs). */
function cpuMeter(): (unlocks: number) => CpuPerUnlock {
  const before = { service: cpuSecondsOf(service.pid), lock: cpuSecondsOf(simulator.pid), client: process.cpuUsage() };
  return (unlocks) => {
    const client = process.cpuUsage(before.client);
    const perUnlock = (seconds: number) => (seconds * 1e6) / unlocks;
    return {
      service: perUnlock(cpuSecondsOf(service.pid) - before.service),
      lock: perUnlock(cpuSecondsOf(simulator.pid) - before.lock),
      client: perUnlock((client.user + client.system) / 1e6),
    };
  };
}

interface Measured { latencies: number[]; failures: number; cpuPerUnlock: CpuPerUnlock }

/** Runs `phase` under the service's CPU profiler when UNLOCK_BENCH_PROFILE names a directory. */
async function profiled<T>(name: string, phase: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return phase();
  await service.ask({ type: 'profile-start' }, 'profiling');
  const result = await phase();
  await service.ask({ type: 'profile-stop', file: join(PROFILE_DIR, `service-${name}.cpuprofile`) }, 'profiled');
  return result;
}

async function fixedRate(): Promise<Measured> {
  const tokens = Array.from({ length: RATE * FIXED_SECONDS }, unlockToken);
  const results: Array<Promise<number | null>> = [];
  const cpu = cpuMeter();
  const start = performance.now();
  for (let i = 0; i < tokens.length; i++) {
    const wait = start + (i * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    results.push(timedUnlock(tokens[i]!));
  }
  const settled = await Promise.all(results);
  const latencies = settled.filter((l): l is number => l !== null).sort((a, b) => a - b);
  return { latencies, failures: settled.length - latencies.length, cpuPerUnlock: cpu(latencies.length) };
}

interface AutocannonResult { duration: number; '2xx': number; non2xx: number; errors: number; timeouts: number }
type Autocannon = ((options: object, done: (err: Error | null, result: AutocannonResult) => void) => NodeJS.EventEmitter) & { track?: unknown };
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

interface Peak extends Measured { perSecond: number }

/** `concurrency` requests in flight for PEAK_SECONDS, each with a fresh token (signed ahead, then on the fly). */
async function peak(concurrency: number): Promise<Peak> {
  const tokens = Array.from({ length: 5000 * PEAK_SECONDS }, unlockToken);
  const latencies: number[] = [];
  const perf = PERF_DIR ? await recordPerf(service.pid, join(PERF_DIR, `service-peak-${concurrency}.perf.data`)) : null;
  const cpu = cpuMeter();
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    const run = autocannon({
      url: base, connections: concurrency, duration: PEAK_SECONDS,
      requests: [{ method: 'POST', path: executePath, headers: executeHeaders, setupRequest: (req: object) => ({ ...req, body: tokens.pop() ?? unlockToken() }) }],
    }, (err, done) => (err ? reject(err) : resolve(done)));
    run.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status === 200) latencies.push(ms);
    });
  });
  await perf?.stop();
  return {
    perSecond: result['2xx'] / result.duration,
    failures: result.non2xx + result.errors + result.timeouts,
    latencies: latencies.sort((a, b) => a - b),
    cpuPerUnlock: cpu(result['2xx']),
  };
}

// One core's verify rate, before and after the phases (the machine's load may change meanwhile): the mean is the unit of the targets.
const verificationsBefore = ed25519VerificationsPerSecond();
const fixed = await profiled('fixed', fixedRate);
const peaks = new Map<number, Peak>();
for (const concurrency of CONCURRENCIES) peaks.set(concurrency, await profiled(`peak-${concurrency}`, () => peak(concurrency)));
const top = [...peaks.values()].reduce((best, next) => (next.perSecond > best.perSecond ? next : best));
const verificationsAfter = ed25519VerificationsPerSecond();
const verifications = (verificationsBefore + verificationsAfter) / 2;
const verifyMicros = 1e6 / verifications;
const fmt = (n: number) => n.toFixed(1);
const us = (n: number) => `${n.toFixed(0)} µs`;
console.log(`unlock end to end (SQLite, embedded broker; service, simulated lock and client in separate processes; ${process.arch}, 2 cores shared by all three)`);
const cpuLine = ({ service: s, lock, client }: CpuPerUnlock) => `CPU per unlock: service ${us(s)}, lock ${us(lock)}, client ${us(client)}`;
console.log(`  fixed ${RATE}/s for ${FIXED_SECONDS} s: p50 ${fmt(percentile(fixed.latencies, 50))} ms   p99 ${fmt(percentile(fixed.latencies, 99))} ms   ok ${fixed.latencies.length}   failed ${fixed.failures}   (target p50 ≤ 3 ms)`);
console.log(`    ${cpuLine(fixed.cpuPerUnlock)}`);
for (const [concurrency, run] of peaks) {
  console.log(`  peak with ${concurrency} in flight: ${run.perSecond.toFixed(0)} unlocks/s   p50 ${fmt(percentile(run.latencies, 50))} ms   p99 ${fmt(percentile(run.latencies, 99))} ms   failed ${run.failures}`);
  console.log(`    ${cpuLine(run.cpuPerUnlock)}   → the service alone on one core ≈ ${(1e6 / run.cpuPerUnlock.service).toFixed(0)} unlocks/s`);
}
console.log(`  Ed25519 verify (node:crypto, one core, by CPU time): ${verifications.toFixed(0)}/s (${verificationsBefore.toFixed(0)} before, ${verificationsAfter.toFixed(0)} after), ${verifyMicros.toFixed(1)} µs each   best peak = ${((100 * top.perSecond) / verifications).toFixed(1)} % of it (target ≥ ${TARGET_SHARE * 100} %)`);
console.log(`  service CPU per unlock at the best peak: ${us(top.cpuPerUnlock.service)} = ${(top.cpuPerUnlock.service / verifyMicros).toFixed(1)} × one Ed25519 verify (target ≤ ${TARGET_VERIFIES} ×, issue 17 §6)`);
if (PROFILE_DIR) console.log(`  service CPU profiles: ${PROFILE_DIR}/service-{fixed,peak-N}.cpuprofile`);
if (PERF_DIR) {
  for (const [concurrency, run] of peaks) {
    console.log(`  service CPU with ${concurrency} in flight by area (perf; µs per unlock):`);
    await printPerfSummary(join(PERF_DIR, `service-peak-${concurrency}.perf.data`), run.cpuPerUnlock.service, '    ');
  }
}

await simulator.stop();
await service.stop();
await rm(dataDir, { recursive: true, force: true });
