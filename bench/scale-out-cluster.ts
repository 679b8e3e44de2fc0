// Issue 33 point 2: cluster CPU per unlock at 1, 2 and 3 instances, each a process of its own, on
// one PostgreSQL database, one Redis and one Mosquitto, with the lock reports shared (each to one
// instance, MQTT 5 shared subscriptions, replies to the sender: MQTT_SHARED_SUBSCRIPTIONS=true,
// the default) and, for comparison in the same run, heard by every instance (false). Unlocks at a
// fixed rate, sent in turn to each instance of the cluster; the CPU of every instance together,
// divided by the unlocks. Goal: flat (as many instances, the same CPU per unlock). Beside it, the
// marginal figure: the same less each instance's idle rate measured just before the run.
// SCALE_CLUSTER_RATE_PER_INSTANCE=R: R unlocks/s for each instance of the cluster (R, 2R, 3R) instead of 40/s for the
// cluster: each instance then serves the same load at every size, which a process's cost per unlock depends on.
// Env: SCALE_CLUSTER_ROUNDS (default 2), SCALE_CLUSTER_WARM_PER_INSTANCE (default 0), SCALE_BENCH_MQTT_URL, LATCHKEY_TEST_REDIS_URL (bench/scale-out.ts).
import { committedTransactions, startInstance, type Instance } from './scale-lib.js';
import { fixedRate, startScaleBench, startUnlockRig, warmUp, type UnlockRig } from './scale-unlock.js';
import { loadavg } from 'node:os';
import { percentile } from './lib.js';

const PER_INSTANCE = Number(process.env.SCALE_CLUSTER_RATE_PER_INSTANCE ?? 0);
/** Unlocks a second sent to a cluster of `size`. */
const rateOf = (size: number) => (PER_INSTANCE > 0 ? PER_INSTANCE * size : 40);
const SECONDS = 5;
const ROUNDS = Number(process.env.SCALE_CLUSTER_ROUNDS ?? 2);
const SIZES = [1, 2, 3];

const bench = await startScaleBench('cluster');
const { redis, database, dataDir, lock, broker, env: base } = bench;
let rig: UnlockRig | null = null;
let running: Instance[] = [];

/**
 * Unlocks sent to each instance after the usual warm-up (100 in turn over the cluster), before the
 * run: SCALE_CLUSTER_WARM_PER_INSTANCE, default 0 (as before). Each instance compiles its hot code
 * on first use, a cost per process and not per unlock, which a run of 200 unlocks at 3 instances
 * otherwise pays three times over.
 */
const WARM_PER_INSTANCE = Number(process.env.SCALE_CLUSTER_WARM_PER_INSTANCE ?? 0);

/** Seconds each instance is watched idle just before a run: its own rate (timers, keep-alives), for the marginal figure. */
const IDLE_SECONDS = 5;

interface Row { shared: boolean; size: number; cpuUs: number; marginalUs: number; commits: number; p50: number; p99: number; failed: number }

/** One cluster of `size`: started, warmed up, measured, stopped. */
async function measure(shared: boolean, size: number): Promise<Row> {
  const env = { ...base, MQTT_SHARED_SUBSCRIPTIONS: String(shared) };
  running = [];
  for (let i = 0; i < size; i++) running.push(await startInstance(env));
  try {
    if (rig === null) rig = await startUnlockRig(running, lock, broker!, dataDir);
    else await warmUp(rig, running);
    for (let i = 0; i < WARM_PER_INSTANCE * size; i++) await rig.unlock(running[i % size]!, rig.unlockToken());
    // Each instance's idle rate, just before the run (after the warm-up's relocks have landed).
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const idleFrom = await Promise.all(running.map((instance) => instance.cpu()));
    const idleStart = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idleTo = await Promise.all(running.map((instance) => instance.cpu()));
    const idleRate = (idleTo.reduce((sum, value, i) => sum + value - idleFrom[i]!, 0) * 1000) / (performance.now() - idleStart);
    const commitsBefore = await committedTransactions(database.name);
    const before = await Promise.all(running.map((instance) => instance.cpu()));
    const started = performance.now();
    const run = await fixedRate(rig, running, running, rateOf(size), SECONDS);
    // The reports of the last unlocks (the relock after each) are still being recorded: let them land in the figures.
    await new Promise((resolve) => setTimeout(resolve, 6000));
    const after = await Promise.all(running.map((instance) => instance.cpu()));
    const span = (performance.now() - started) / 1000;
    const commits = (await committedTransactions(database.name)) - commitsBefore;
    const unlocks = Math.floor(rateOf(size) * SECONDS);
    const cpu = after.reduce((sum, value, i) => sum + value - before[i]!, 0);
    const marginal = cpu - idleRate * span;
    return { shared, size, cpuUs: (cpu / unlocks) * 1e6, marginalUs: (marginal / unlocks) * 1e6, commits: commits / unlocks, p50: percentile(run.latencies, 50), p99: percentile(run.latencies, 99), failed: run.failures };
  } finally {
    await Promise.all(running.map((instance) => instance.stop()));
    running = [];
  }
}

try {
  if (!broker) {
    console.log('\n## Cluster CPU per unlock (issue 33 point 2): not measured (mosquitto is not installed and SCALE_BENCH_MQTT_URL is not set)');
  } else {
    const rows: Row[] = [];
    for (let round = 1; round <= ROUNDS; round++) for (const size of SIZES) for (const shared of [true, false]) rows.push(await measure(shared, size));
    console.log(`\n## Cluster CPU per unlock (issue 33 point 2): 1–3 instances in processes of their own, PostgreSQL + ${redis.private ? 'a private Redis' : 'Redis'} + ${broker.label}, the simulated lock; ${PER_INSTANCE > 0 ? `${PER_INSTANCE} unlocks/s an instance (${SIZES.map(rateOf).map((r) => r.toFixed(1)).join(' / ')})` : '40 unlocks/s'} for ${SECONDS} s sent in turn to each instance, ${ROUNDS} round(s) (a shared 2-core machine: compare within a round)`);
    console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; ${WARM_PER_INSTANCE} more warm-up unlocks an instance (SCALE_CLUSTER_WARM_PER_INSTANCE)`);
    console.log('CPU (gross): every instance of the cluster together over the run\'s span, per unlock (the relock 5 s later and every report included). Goal: flat with the number of instances.');
    console.log(`Marginal: the same less each instance's own idle rate (measured for ${IDLE_SECONDS} s just before the run) over the span: what the unlocks added. Not the goal's figure on its own: read beside the gross one.`);
    for (let round = 0; round < ROUNDS; round++) {
      const of = (shared: boolean) => rows.slice(round * SIZES.length * 2).filter((row) => row.shared === shared).slice(0, SIZES.length);
      for (const shared of [true, false]) {
        const series = of(shared);
        const first = series[0]!.cpuUs;
        const label = shared ? 'each report to one instance (shared)   ' : 'every report to every instance (before)';
        const marginalFirst = series[0]!.marginalUs;
        console.log(`  round ${round + 1}, ${label}: ${series.map((row) => `${row.size}: ${row.cpuUs.toFixed(0)} µs (×${(row.cpuUs / first).toFixed(2)}) gross, ${row.marginalUs.toFixed(0)} µs (×${(row.marginalUs / marginalFirst).toFixed(2)}) marginal, ${row.commits.toFixed(1)} PG commits, p50/p99 ${row.p50.toFixed(0)}/${row.p99.toFixed(0)} ms${row.failed ? `, ${row.failed} failed` : ''}`).join('   ')}   goal: flat (×1.00)`);
      }
    }
  }
} finally {
  await (rig as UnlockRig | null)?.stop();
  await Promise.all(running.map((instance) => instance.stop()));
  await bench.close();
}
