// One-box scale test (issue 17 §7): one and two instances, each a process of its own, on one
// PostgreSQL database and one Redis, loaded with authenticated GET /account by clients that
// alternate between the instances; req/s, latency and each instance's CPU per request.
// Unlocks across instances need a shared external broker: not measured here (docs/scaling.md).
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { autocannon, type LoadResult } from './lib.js';
import { createBenchDatabase, REDIS_URL } from './scale-lib.js';

const SECONDS = 4;
const ROUNDS = 2;

interface Instance {
  child: ChildProcess;
  url: string;
  cpu(): Promise<number>;
}

function startInstance(env: Record<string, string>): Promise<Instance> {
  const child = fork(new URL('scale-instance.ts', import.meta.url).pathname, [JSON.stringify(env)], { execArgv: ['--import', 'tsx'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (message: { url: string }) => {
      resolve({
        child,
        url: message.url,
        cpu: () => new Promise((answer) => {
          child.once('message', (reply: { cpu: number }) => answer(reply.cpu));
          child.send('cpu');
        }),
      });
    });
  });
}

const database = await createBenchDatabase();
const env = { DATABASE_URL: database.url, REDIS_URL, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'), BASE_URL: 'http://latchkey.bench' };
const instances: Instance[] = [];
try {
  instances.push(await startInstance(env));
  instances.push(await startInstance(env));
  const registered = await fetch(`${instances[0]!.url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'scale@example.com', password: 'bench password', displayName: 'Scale' }),
  });
  const { authToken } = (await registered.json()) as { authToken: string };
  const headers = { authorization: `Bearer ${authToken}` };
  for (const instance of instances) await autocannon(`${instance.url}/account`, { headers, seconds: 2 });

  const run = async (using: Instance[]) => {
    const before = await Promise.all(using.map((instance) => instance.cpu()));
    const results: LoadResult[] = await Promise.all(using.map((instance) => autocannon(`${instance.url}/account`, { headers, seconds: SECONDS, connections: 10 / using.length })));
    const after = await Promise.all(using.map((instance) => instance.cpu()));
    const total = results.reduce((sum, r) => sum + r.requestsPerSecond, 0);
    const cpuPerRequest = using.map((_, i) => ((after[i]! - before[i]!) / (results[i]!.requestsPerSecond * SECONDS)) * 1e6);
    return { total, results, cpuPerRequest };
  };
  console.log(`\n## One-box scale test: GET /account on PostgreSQL + Redis, 10 connections in all, ${ROUNDS} alternating rounds of ${SECONDS} s (a shared 2-core machine: two instances compete with the load generators and the databases for the same cores)`);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const using of [instances.slice(0, 1), instances]) {
      const { total, results, cpuPerRequest } = await run(using);
      const p99 = Math.max(...results.map((r) => r.p99));
      console.log(`round ${round}: ${using.length} instance(s)  ${total.toFixed(0).padStart(7)} req/s   p99 ${p99} ms   CPU per request ${cpuPerRequest.map((us) => `${us.toFixed(0)} µs`).join(' / ')}`);
    }
  }
  console.log('unlock p50/p99 across two instances: not measured (needs a shared external broker; see docs/scaling.md and npm run bench -- unlock for one instance)');
} finally {
  for (const instance of instances) instance.child.send('stop');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await database.drop();
}
