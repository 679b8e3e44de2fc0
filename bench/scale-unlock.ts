// The unlock half of bench/scale-out.ts: a lock provisioned in the shared PostgreSQL database, one
// MQTT broker that every instance and the simulated lock use (a private Mosquitto with the
// documented password configuration, or SCALE_BENCH_MQTT_URL), and unlocks sent at a fixed rate,
// or with a fixed number in flight, to one instance or alternately to two.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { generateEphemeralKey, requestCertificate, signOperation } from '../src/client/index.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { provisionLock, type ProvisionedLock } from '../src/locks/provision.js';
import { mosquittoInstalled, startMosquitto } from '../test/helpers/mosquitto.js';
import { percentile } from './lib.js';
import { createBenchDatabase, startBenchRedis, type Instance } from './scale-lib.js';
import { startSimulatorProcess, type SimulatorProcess } from './unlock-processes.js';

/** Migrates the database and provisions a lock in it, before any instance starts (the broker's password file needs its secret). */
export async function provisionBenchLock(databaseUrl: string, dataDir: string): Promise<ProvisionedLock> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir, BASE_URL: 'http://latchkey.bench' }, process.cwd());
  const db = openDatabase(config.database);
  try {
    await migrateToLatest(db);
    return await provisionLock(db.kysely, { name: 'Scale door' }, Date.now() / 1000);
  } finally {
    await db.close();
  }
}

export interface BenchBroker {
  /** MQTT_URL for the instances (with the service's credentials). */
  serviceUrl: string;
  /** Where the simulated lock connects (it logs in with its id and secret). */
  port: number;
  /** Configuration the instances need besides MQTT_URL. */
  env: Record<string, string>;
  label: string;
  close(): Promise<void>;
}

/**
 * SCALE_BENCH_MQTT_URL (e.g. mqtt://127.0.0.1:1883, a broker already running that lets the lock
 * in; started with MQTT_ALLOW_INSECURE_BROKER since such a broker usually takes anyone), else a
 * private Mosquitto knowing the service and the lock; null when neither is possible.
 */
export async function startBenchBroker(lock: ProvisionedLock): Promise<BenchBroker | null> {
  const external = process.env.SCALE_BENCH_MQTT_URL;
  if (external) {
    const url = new URL(external);
    return { serviceUrl: external, port: Number(url.port || 1883), env: { MQTT_ALLOW_INSECURE_BROKER: 'true' }, label: `external broker ${url.host}`, close: async () => undefined };
  }
  if (!mosquittoInstalled) return null;
  const service = { username: 'latchkey-service', password: randomBytes(18).toString('base64url') };
  const mosquitto = await startMosquitto([service, { username: lock.id, password: lock.secret }], service.username);
  return {
    serviceUrl: mosquitto.url.replace('mqtt://', `mqtt://${service.username}:${encodeURIComponent(service.password)}@`),
    port: mosquitto.port,
    env: {},
    label: 'a private Mosquitto',
    close: () => mosquitto.close(),
  };
}

/** What the scale-out benchmarks share: Redis, a PostgreSQL database with the lock provisioned, the broker, and the instances' configuration. */
export interface ScaleBench {
  redis: Awaited<ReturnType<typeof startBenchRedis>>;
  database: Awaited<ReturnType<typeof createBenchDatabase>>;
  dataDir: string;
  lock: ProvisionedLock;
  /** Null when neither a private Mosquitto nor SCALE_BENCH_MQTT_URL is available (unlocks are then not measured). */
  broker: BenchBroker | null;
  /** The configuration every instance starts with. */
  env: Record<string, string>;
  /** Stops the broker, drops the database, stops Redis, removes the data directory (the instances and the rig first). */
  close(): Promise<void>;
}

export async function startScaleBench(name: string): Promise<ScaleBench> {
  const redis = await startBenchRedis();
  const database = await createBenchDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), `latchkey-bench-${name}-`));
  const lock = await provisionBenchLock(database.url, dataDir);
  const broker = await startBenchBroker(lock);
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    BASE_URL: 'http://latchkey.bench',
    CERT_CHECK: 'never',
    LOG_LEVEL: 'error',
    ...(broker ? { MQTT_URL: broker.serviceUrl, ...broker.env } : {}),
  };
  return {
    redis, database, dataDir, lock, broker, env,
    async close() {
      await broker?.close();
      await database.drop();
      await redis.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A user owning the lock, with a certified key to sign unlocks, and the simulated lock online. */
export interface UnlockRig {
  unlockToken(): string;
  /** One unlock sent to `instance`: its latency in ms, or null when it failed. */
  unlock(instance: Instance, token: string): Promise<number | null>;
  stop(): Promise<void>;
}

export async function startUnlockRig(instances: Instance[], lock: ProvisionedLock, broker: BenchBroker, dataDir: string): Promise<UnlockRig> {
  const base = instances[0]!.url;
  const post = (path: string, body: unknown, token?: string) =>
    fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  const { authToken } = (await (await post('/auth/register', { email: `unlock-${Date.now()}@example.com`, password: 'correct horse battery' })).json()) as { authToken: string };
  const userId = (JSON.parse(Buffer.from(authToken.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub;
  const key = generateEphemeralKey();
  const certificate = await requestCertificate(base, authToken, key);
  if ('needsVerification' in certificate) throw new Error('CERT_CHECK=never expected');
  const claim = await post('/device', { key: lock.registrationKey, name: 'Scale door' }, authToken);
  if (claim.status !== 200) throw new Error(`claim failed: ${claim.status} ${await claim.text()}`);
  const simulator: SimulatorProcess = await startSimulatorProcess({ id: lock.id, secret: lock.secret, mqttPort: broker.port, rootCertificate: instances[0]!.rootCertificate, dataDir });
  process.once('exit', () => {
    try {
      process.kill(simulator.pid);
    } catch {
      // already gone
    }
  });
  // Kept-alive connections per instance, made on first use (bench/scale-out-cluster.ts starts new instances with the same rig).
  const agents = new Map<Instance, Agent>();
  const agentOf = (instance: Instance): Agent => {
    let agent = agents.get(instance);
    if (agent === undefined) agents.set(instance, (agent = new Agent({ keepAlive: true, maxSockets: 256 })));
    return agent;
  };
  const headers = { 'content-type': 'application/json;charset=UTF-8', authorization: `Bearer ${authToken}` };
  const path = `/device/${lock.id}/execute`;
  const rig: UnlockRig = {
    unlockToken: () => signOperation({ key, certificateChain: certificate.certificateChain, userId, lockId: lock.id, operation: { type: 'MUTATE_LOCK', locked: false } }),
    unlock(instance, token) {
      const { hostname, port } = new URL(instance.url);
      return new Promise((resolve) => {
        const started = performance.now();
        const req = request({ hostname, port, path, method: 'POST', agent: agentOf(instance), headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : null));
        });
        req.on('error', () => resolve(null));
        req.end(token);
      });
    },
    async stop() {
      for (const agent of agents.values()) agent.destroy();
      await simulator.stop();
    },
  };
  await warmUp(rig, instances, () => simulator.diagnose());
  return rig;
}

/**
 * The lock comes online and receives its configuration (through whichever instance): waits until
 * every instance gets an unlock through, then warms up.
 */
export async function warmUp(rig: UnlockRig, instances: Instance[], diagnose: () => Promise<string> = async () => ''): Promise<void> {
  for (const instance of instances) {
    for (let attempt = 0; (await rig.unlock(instance, rig.unlockToken())) === null; attempt++) {
      if (attempt > 600) throw new Error(`the simulated lock never accepted an unlock through ${instance.url} (30 s): ${await diagnose()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  for (let i = 0; i < 100; i++) await rig.unlock(instances[i % instances.length]!, rig.unlockToken());
}

export interface UnlockRun {
  latencies: number[];
  failures: number;
  perSecond: number;
  /** Service CPU per unlock each instance answered (µs); for an instance that answered none, per unlock of the run. */
  cpuPerUnlock: number[];
}

async function measured(instances: Instance[], using: Instance[], work: (sent: number[]) => Promise<{ latencies: number[]; failures: number; seconds: number }>): Promise<UnlockRun> {
  const before = await Promise.all(instances.map((instance) => instance.cpu()));
  const sent = using.map(() => 0);
  const { latencies, failures, seconds } = await work(sent);
  const after = await Promise.all(instances.map((instance) => instance.cpu()));
  const total = sent.reduce((a, b) => a + b, 0);
  const cpuPerUnlock = instances.map((instance, i) => {
    const served = sent[using.indexOf(instance)] ?? 0;
    return ((after[i]! - before[i]!) * 1e6) / (served > 0 ? served : total);
  });
  return { latencies: latencies.sort((a, b) => a - b), failures, perSecond: latencies.length / seconds, cpuPerUnlock };
}

/** `rate` unlocks a second, evenly spaced, for `seconds`, sent in turn to each of `using`. */
export function fixedRate(rig: UnlockRig, instances: Instance[], using: Instance[], rate: number, seconds: number): Promise<UnlockRun> {
  return measured(instances, using, async (sent) => {
    const tokens = Array.from({ length: rate * seconds }, rig.unlockToken);
    const results: Array<Promise<number | null>> = [];
    const start = performance.now();
    for (let i = 0; i < tokens.length; i++) {
      const wait = start + (i * 1000) / rate - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      sent[i % using.length]! += 1;
      results.push(rig.unlock(using[i % using.length]!, tokens[i]!));
    }
    const settled = await Promise.all(results);
    const latencies = settled.filter((l): l is number => l !== null);
    return { latencies, failures: settled.length - latencies.length, seconds };
  });
}

/** `inFlight` unlocks always under way for `seconds`, each worker sending to one of `using` in turn. */
export function closedLoop(rig: UnlockRig, instances: Instance[], using: Instance[], inFlight: number, seconds: number): Promise<UnlockRun> {
  return measured(instances, using, async (sent) => {
    const tokens = Array.from({ length: 600 * seconds }, rig.unlockToken);
    const latencies: number[] = [];
    let failures = 0;
    let next = 0;
    const start = performance.now();
    const end = start + seconds * 1000;
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) {
        const target = next++ % using.length;
        sent[target]! += 1;
        const latency = await rig.unlock(using[target]!, tokens.pop() ?? rig.unlockToken());
        if (latency === null) failures += 1;
        else latencies.push(latency);
      }
    }));
    return { latencies, failures, seconds: (performance.now() - start) / 1000 };
  });
}

export function describeRun(label: string, run: UnlockRun, instances: Instance[], using: Instance[]): string {
  const cpu = instances.map((instance, i) => `${run.cpuPerUnlock[i]!.toFixed(0)} µs${using.includes(instance) ? '' : ' (idle, per unlock of the run)'}`).join(' / ');
  return `${label.padEnd(38)} ${run.perSecond.toFixed(0).padStart(5)} unlocks/s   p50 ${percentile(run.latencies, 50).toFixed(1).padStart(5)} ms   p99 ${percentile(run.latencies, 99).toFixed(1).padStart(6)} ms   failed ${run.failures}   service CPU per unlock ${cpu}`;
}
