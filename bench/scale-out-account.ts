// GET /account on one instance in three set-ups, in alternating rounds of one run: SQLite alone
// (the reference), PostgreSQL alone, PostgreSQL + Redis (scale-out mode). Also per request:
// PostgreSQL transactions and Redis commands. Target (issue 17 §1): PostgreSQL + Redis >= 0.75 × SQLite.
import { autocannon, row, startBenchService, type LoadResult } from './lib.js';
import { committedTransactions, createBenchDatabase, redisCommands, startBenchRedis } from './scale-lib.js';

const ROUNDS = 3;
const SECONDS = 3;

async function signUp(url: string): Promise<string> {
  const registered = await fetch(`${url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `bench-${Math.random().toString(36).slice(2)}@example.com`, password: 'bench password', displayName: 'Bench' }),
  });
  return ((await registered.json()) as { authToken: string }).authToken;
}

const redis = await startBenchRedis();
const pgAlone = await createBenchDatabase();
const pgRedis = await createBenchDatabase();
const setups = [
  { label: 'SQLite', env: {} as Record<string, string>, database: null as null | { name: string } },
  { label: 'PostgreSQL', env: { DATABASE_URL: pgAlone.url }, database: pgAlone },
  { label: 'PostgreSQL + Redis', env: { DATABASE_URL: pgRedis.url, REDIS_URL: redis.url }, database: pgRedis },
];
interface Running {
  label: string;
  database: null | { name: string };
  bench: Awaited<ReturnType<typeof startBenchService>>;
  token: string;
  results: LoadResult[];
  transactions: number;
  commands: number;
  requests: number;
}
const running: Running[] = [];
try {
  for (const setup of setups) {
    const bench = await startBenchService(setup.env);
    const token = await signUp(bench.service.url);
    running.push({ ...setup, bench, token, results: [] as LoadResult[], transactions: 0, commands: 0, requests: 0 });
  }
  for (const r of running) await autocannon(`${r.bench.service.url}/account`, { headers: { authorization: `Bearer ${r.token}` }, seconds: 2 }); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of running) {
      const transactionsBefore = r.database ? await committedTransactions(r.database.name) : 0;
      const commandsBefore = await redisCommands(redis.url);
      const result = await autocannon(`${r.bench.service.url}/account`, { headers: { authorization: `Bearer ${r.token}` }, seconds: SECONDS });
      r.commands += (await redisCommands(redis.url)) - commandsBefore - 1;
      if (r.database) r.transactions += (await committedTransactions(r.database.name)) - transactionsBefore - 1;
      r.requests += result.requestsPerSecond * SECONDS;
      r.results.push(result);
    }
  }
  console.log(`\n## GET /account on one instance: SQLite, PostgreSQL, PostgreSQL + Redis (${ROUNDS} alternating rounds of ${SECONDS} s, 10 connections; a shared 2-core machine)`);
  for (const r of running) for (const [i, result] of r.results.entries()) console.log(row(`round ${i + 1}: ${r.label}`, result));
  const median = (r: Running) => r.results.map((x) => x.requestsPerSecond).sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
  for (const r of running) {
    // Issue 17 §1: no database query and at most one Redis round trip (best none) per authenticated read.
    const perRequest = r.label === 'SQLite' ? '' : `   PostgreSQL transactions/request ${(Math.max(0, r.transactions) / r.requests).toFixed(3)} (target 0)`;
    const redis = r.label.includes('Redis') ? ' (target ≤ 1, best 0)' : '';
    console.log(`${r.label.padEnd(20)} median ${median(r).toFixed(0).padStart(7)} req/s   Redis commands/request ${(Math.max(0, r.commands) / r.requests).toFixed(3)}${redis}${perRequest}`);
  }
  const [sqlite, pgOnly, scaled] = running;
  console.log(`PostgreSQL alone / SQLite: ${(median(pgOnly!) / median(sqlite!)).toFixed(2)}  (no target: printed beside the scale-out figure, as §1 asks)`);
  console.log(`PostgreSQL + Redis / SQLite: ${(median(scaled!) / median(sqlite!)).toFixed(2)}  (target >= 0.75; before issue 17 about 0.11)`);
} finally {
  for (const r of running) await r.bench.close();
  await pgAlone.drop();
  await pgRedis.drop();
  await redis.stop();
}
