// One-box scale test (issue 17 §7): one and two instances, each a process of its own, on one
// PostgreSQL database, one Redis and one MQTT broker (a private Mosquitto, or
// SCALE_BENCH_MQTT_URL), loaded by clients that alternate between the instances. Prints, for one
// and two instances: GET /account req/s and latency, unlock p50/p99 at a fixed rate and
// unlocks/s with a fixed number in flight, and each instance's CPU per request; and how long a
// logout on one instance takes to be refused on the other (issue 17 §1: 100 ms).
// Env: SCALE_BENCH_MQTT_URL (a broker already running instead of a private Mosquitto);
// SCALE_BENCH_PROFILE=DIR (each instance writes a CPU profile there; bench/profile-summary.ts);
// LATCHKEY_TEST_REDIS_URL (a Redis instead of a private redis-server).
import { randomBytes } from 'node:crypto';
import { autocannon, ed25519VerificationsPerSecond, percentile, type LoadResult } from './lib.js';
import { committedTransactions, redisCommands, startInstance, type Instance } from './scale-lib.js';
import { closedLoop, describeRun, fixedRate, startScaleBench, startUnlockRig, type UnlockRig, type UnlockRun } from './scale-unlock.js';

const READ_SECONDS = 4;
const ROUNDS = 2;
const UNLOCK_RATE = 50;
const UNLOCK_SECONDS = 5;
const IN_FLIGHT = 16;
const PEAK_SECONDS = 4;
const LOGOUTS = 20;

const bench = await startScaleBench('scale');
const { redis, database, dataDir, lock, broker, env } = bench;
const instances: Instance[] = [];
let rig: UnlockRig | null = null;

async function register(url: string, label: string): Promise<string> {
  const registered = await fetch(`${url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${label}-${randomBytes(4).toString('hex')}@example.com`, password: 'bench password', displayName: 'Scale' }),
  });
  return ((await registered.json()) as { authToken: string }).authToken;
}

/** Authenticated GET /account with 10 connections in all, split over `using`; req/s, p99 and each instance's CPU per request. */
async function reads(using: Instance[], headers: Record<string, string>) {
  const before = await Promise.all(using.map((instance) => instance.cpu()));
  const results: LoadResult[] = await Promise.all(using.map((instance) => autocannon(`${instance.url}/account`, { headers, seconds: READ_SECONDS, connections: 10 / using.length })));
  const after = await Promise.all(using.map((instance) => instance.cpu()));
  return {
    total: results.reduce((sum, r) => sum + r.requestsPerSecond, 0),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    cpuPerRequest: using.map((_, i) => ((after[i]! - before[i]!) / (results[i]!.requestsPerSecond * READ_SECONDS)) * 1e6),
  };
}

/**
 * Logout on A, then B asked at once and again until it refuses: how often B refuses the very first
 * request made after A answered (the logout answers once Redis has taken the announcement, so
 * normally always), and the time from sending the logout to B's refusal (an upper bound of the
 * propagation, issue 17 §1's 100 ms).
 */
async function logoutPropagation(a: Instance, b: Instance): Promise<{ refusedFirst: number; times: number[] }> {
  let refusedFirst = 0;
  const times: number[] = [];
  for (let i = 0; i < LOGOUTS; i++) {
    const token = await register(a.url, 'logout');
    const headers = { authorization: `Bearer ${token}` };
    if ((await fetch(`${b.url}/account`, { headers })).status !== 200) throw new Error('the new session is refused on B');
    const sent = performance.now();
    const logout = await fetch(`${a.url}/auth/token/destroy`, { method: 'POST', headers });
    if (logout.status !== 204) throw new Error(`logout answered ${logout.status}`);
    for (let attempt = 0; ; attempt++) {
      const status = (await fetch(`${b.url}/account`, { headers })).status;
      if (status === 401) {
        times.push(performance.now() - sent);
        if (attempt === 0) refusedFirst += 1;
        break;
      }
      if (performance.now() - sent > 5000) throw new Error('B still serves the session 5 s after the logout');
    }
  }
  return { refusedFirst, times: times.sort((x, y) => x - y) };
}

/** `work`'s PostgreSQL commits and Redis commands (the Redis is the benchmark's own unless LATCHKEY_TEST_REDIS_URL names one). */
async function counted<T>(work: () => Promise<T>): Promise<{ result: T; transactions: number; commands: number }> {
  const transactionsBefore = await committedTransactions(database.name);
  const commandsBefore = await redisCommands(redis.url);
  const result = await work();
  const commands = (await redisCommands(redis.url)) - commandsBefore - 1;
  const transactions = (await committedTransactions(database.name)) - transactionsBefore;
  return { result, transactions, commands };
}

try {
  instances.push(await startInstance(env));
  instances.push(await startInstance(env));
  const one = instances.slice(0, 1);
  const headers = { authorization: `Bearer ${await register(instances[0]!.url, 'scale')}` };
  for (const instance of instances) await autocannon(`${instance.url}/account`, { headers, seconds: 2 });

  console.log(`\n## One-box scale test (issue 17 §7): PostgreSQL + ${redis.private ? 'a private Redis' : 'Redis'} + ${broker?.label ?? 'no broker'}, instances in processes of their own, ${ROUNDS} alternating rounds (a shared 2-core machine: the instances compete with the load generators, the databases, the broker and the simulated lock for the same cores)`);
  console.log(`GET /account, 10 connections in all, ${READ_SECONDS} s per run (no target in §7: the figures; §1's one-instance ratio is printed by scale-out-account)`);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const using of [one, instances]) {
      const r = await reads(using, headers);
      console.log(`  round ${round}: ${using.length} instance(s)  ${r.total.toFixed(0).padStart(7)} req/s   p50 ${r.p50} ms   p99 ${r.p99} ms   service CPU per request ${r.cpuPerRequest.map((us) => `${us.toFixed(0)} µs`).join(' / ')}`);
    }
  }

  const propagation = await logoutPropagation(instances[0]!, instances[1]!);
  console.log(`logout on A → 401 on B (issue 17 §1, target ≤ 100 ms): B refused the first request after A's answer in ${propagation.refusedFirst}/${LOGOUTS}; from sending the logout to B's 401: p50 ${percentile(propagation.times, 50).toFixed(1)} ms, max ${propagation.times.at(-1)!.toFixed(1)} ms`);

  if (!broker) {
    console.log('unlocks: not measured (mosquitto is not installed and SCALE_BENCH_MQTT_URL is not set)');
  } else {
    rig = await startUnlockRig(instances, lock, broker, dataDir);
    const fixed: Array<[string, UnlockRun, Instance[], string]> = [];
    const peaks: Array<[string, UnlockRun, Instance[]]> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const using of [one, instances]) {
        const { result, transactions, commands } = await counted(() => fixedRate(rig!, instances, using, UNLOCK_RATE, UNLOCK_SECONDS));
        const sent = UNLOCK_RATE * UNLOCK_SECONDS;
        fixed.push([`  round ${round}: ${using.length} instance(s)`, result, using, `PostgreSQL commits ${(transactions / sent).toFixed(1)}, Redis commands ${(commands / sent).toFixed(1)} per unlock (all instances, background work included)`]);
      }
      for (const using of [one, instances]) peaks.push([`  round ${round}: ${using.length} instance(s)`, await closedLoop(rig, instances, using, IN_FLIGHT, PEAK_SECONDS), using]);
    }
    console.log(`unlock (POST /device/{id}/execute through the broker to the simulated lock and back), ${UNLOCK_RATE}/s evenly spaced for ${UNLOCK_SECONDS} s, alternating between the instances used (no target in §7: the figures; CPU: instance A / instance B)`);
    for (const [label, run, using, costs] of fixed) console.log(`${describeRun(label, run, instances, using)}\n      ${costs}`);
    console.log(`unlock, ${IN_FLIGHT} in flight for ${PEAK_SECONDS} s (one simulated lock answers them all)`);
    for (const [label, run, using] of peaks) console.log(describeRun(label, run, instances, using));
    const verifications = ed25519VerificationsPerSecond();
    const best = Math.min(...peaks.map(([, run, using]) => Math.min(...instances.filter((i) => using.includes(i)).map((i) => run.cpuPerUnlock[instances.indexOf(i)]!))));
    console.log(`Ed25519 verification (one core, by CPU time): ${(1e6 / verifications).toFixed(0)} µs; lowest service CPU per unlock above = ${(best / (1e6 / verifications)).toFixed(1)} × that (for comparison: issue 17 §6's target, ≤ 3 ×, is for one instance on SQLite with the embedded broker, npm run bench -- unlock)`);
  }
} finally {
  await rig?.stop();
  await Promise.all(instances.map((instance) => instance.stop()));
  await bench.close();
}
