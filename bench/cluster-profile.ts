// Not a benchmark: where a cluster's CPU goes (issue 33 point 2). Starts CLUSTER_PROFILE_SIZE
// instances (default 3) as bench/scale-out-cluster.ts does (shared subscriptions unless
// MQTT_SHARED_SUBSCRIPTIONS=false), then profiles every instance through four phases: idle
// (nothing sent), served by one (unlocks to the first instance only: the others are idle members
// of a busy cluster), served by all (in turn, as the benchmark does), and served by all again
// (the instances warm). Prints each instance's CPU
// and the database's commits per phase, and writes DIR/{phase}-{instance}.cpuprofile
// (bench/profile-summary.ts reads them); without DIR, the figures alone (no profiler's overhead).
// CLUSTER_PROFILE_RATE: unlocks a second (default 40); at 40 / N one instance serves what each of N does at 40.
// Run: node --import tsx bench/cluster-profile.ts [DIR]
import { mkdir } from 'node:fs/promises';
import { committedTransactions, processCounters, startInstance, type Instance, type ProcessCounters } from './scale-lib.js';
import { fixedRate, startScaleBench, startUnlockRig, type UnlockRig } from './scale-unlock.js';

const dir = process.argv[2];
if (dir) await mkdir(dir, { recursive: true });
const SIZE = Number(process.env.CLUSTER_PROFILE_SIZE ?? 3);
const RATE = Number(process.env.CLUSTER_PROFILE_RATE ?? 40);
const SECONDS = 10;
const IDLE_SECONDS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each instance's user / system CPU and its main thread's wake-ups and preemptions a second (Linux only). */
function describeCounters(i: number, from: ProcessCounters | null, to: ProcessCounters | null, seconds: number): string {
  if (from === null || to === null) return `#${i + 1} (no /proc)`;
  const rate = (a: number, b: number, scale = 1) => (((b - a) * scale) / seconds).toFixed(0);
  return `#${i + 1} user ${rate(from.user, to.user, 1000)} sys ${rate(from.system, to.system, 1000)} ms/s, ${rate(from.waits, to.waits)} wake-ups/s, ${rate(from.preempted, to.preempted)} preemptions/s`;
}

const bench = await startScaleBench('cluster-profile');
const instances: Instance[] = [];
let rig: UnlockRig | null = null;
try {
  if (!bench.broker) throw new Error('needs mosquitto or SCALE_BENCH_MQTT_URL');
  const env = { ...bench.env, MQTT_SHARED_SUBSCRIPTIONS: process.env.MQTT_SHARED_SUBSCRIPTIONS ?? 'true' };
  for (let i = 0; i < SIZE; i++) instances.push(await startInstance(env));
  rig = await startUnlockRig(instances, bench.lock, bench.broker, bench.dataDir);
  const phase = async (name: string, work: () => Promise<number>) => {
    const commits = await committedTransactions(bench.database.name);
    if (dir) for (const instance of instances) await instance.startProfile();
    const before = await Promise.all(instances.map((instance) => instance.cpu()));
    const countersBefore = await Promise.all(instances.map((instance) => processCounters(instance.child.pid!)));
    const gcBefore = await Promise.all(instances.map((instance) => instance.gc()));
    const started = performance.now();
    const unlocks = await work();
    const seconds = (performance.now() - started) / 1000;
    const after = await Promise.all(instances.map((instance) => instance.cpu()));
    const countersAfter = await Promise.all(instances.map((instance) => processCounters(instance.child.pid!)));
    const gcAfter = await Promise.all(instances.map((instance) => instance.gc()));
    if (dir) for (const [i, instance] of instances.entries()) await instance.stopProfile(`${dir}/${name}-${i + 1}.cpuprofile`);
    const committed = (await committedTransactions(bench.database.name)) - commits;
    const cpu = after.map((value, i) => value - before[i]!);
    const total = cpu.reduce((a, b) => a + b, 0);
    const each = cpu.map((c, i) => `#${i + 1} ${((c * 1000) / seconds).toFixed(1)} ms/s`).join(', ');
    const perUnlock = unlocks > 0 ? `, ${((total * 1e6) / unlocks).toFixed(0)} µs per unlock (all instances), ${(committed / unlocks).toFixed(1)} commits per unlock` : '';
    console.log(`${name.padEnd(16)} ${seconds.toFixed(1)} s: CPU ${each}; ${(committed / seconds).toFixed(1)} commits/s${perUnlock}`);
    console.log(`${''.padEnd(16)} ${countersAfter.map((c, i) => describeCounters(i, countersBefore[i]!, c, seconds)).join('; ')}`);
    console.log(`${''.padEnd(16)} GC ${gcAfter.map((g, i) => `#${i + 1} ${((g.minorMs - gcBefore[i]!.minorMs) / seconds).toFixed(1)} + ${((g.majorMs - gcBefore[i]!.majorMs) / seconds).toFixed(1)} ms/s (${g.majors - gcBefore[i]!.majors} major)`).join(', ')} (scavenges + the rest)`);
  };
  console.log(`${SIZE} instances, shared subscriptions ${env.MQTT_SHARED_SUBSCRIPTIONS}; load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  await sleep(5000);
  await phase('idle', async () => (await sleep(IDLE_SECONDS * 1000), 0));
  await phase('served-by-one', async () => {
    await fixedRate(rig!, instances, [instances[0]!], RATE, SECONDS);
    await sleep(6000);
    return RATE * SECONDS;
  });
  await phase('served-by-all', async () => {
    await fixedRate(rig!, instances, instances, RATE, SECONDS);
    await sleep(6000);
    return RATE * SECONDS;
  });
  // The same again: what the first cost more is each instance's warm-up (code compiled on first use, caches filled).
  await phase('served-by-all-2', async () => {
    await fixedRate(rig!, instances, instances, RATE, SECONDS);
    await sleep(6000);
    return RATE * SECONDS;
  });
  console.log(`load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
} finally {
  await rig?.stop();
  await Promise.all(instances.map((instance) => instance.stop()));
  await bench.close();
}
