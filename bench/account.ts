// Authenticated GET /account against a raw node:http server answering the same JSON body: the
// framework, authentication and database cost per request. Target (issue 17 §6): ≥ 0.70.
//
// Both servers run in this process, one loaded at a time by autocannon in a process of its own, so
// this process's CPU time (process.cpuUsage) during a round is the loaded server's. The ratio is
// given twice, each the median of alternating rounds: from requests a second (what the target
// says; on a shared machine it moves with the load of others) and from server CPU per request
// (raw's ÷ latchkey's, steadier: it does not count the time the server waited for a core).
// Env: ACCOUNT_BENCH_ROUNDS (default 7), ACCOUNT_BENCH_SECONDS (per run, default 4);
// ACCOUNT_BENCH_PROFILE=FILE records a CPU profile of one more latchkey run after the rounds
// (summarise it with bench/profile-summary.ts).
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { autocannon, row, startBenchService, type LoadResult } from './lib.js';

const ROUNDS = Number(process.env.ACCOUNT_BENCH_ROUNDS ?? 7);
const SECONDS = Number(process.env.ACCOUNT_BENCH_SECONDS ?? 4);
const PROFILE_FILE = process.env.ACCOUNT_BENCH_PROFILE;
const TARGET = 0.7;

interface Run extends LoadResult {
  /** This process's CPU time per request answered, µs. */
  cpuPerRequest: number;
}

/** One autocannon run against `url`, with this process's CPU time per request answered. */
async function measured(url: string, headers?: Record<string, string>): Promise<Run> {
  const before = process.cpuUsage();
  const result = await autocannon(url, { headers, seconds: SECONDS });
  const used = process.cpuUsage(before);
  const answered = result.requestsPerSecond * SECONDS;
  return { ...result, cpuPerRequest: (used.user + used.system) / answered };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const bench = await startBenchService();
try {
  const url = bench.service.url;
  const registered = await fetch(`${url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'bench password', displayName: 'Bench' }),
  });
  const { authToken } = (await registered.json()) as { authToken: string };
  const sample = await (await fetch(`${url}/account`, { headers: { authorization: `Bearer ${authToken}` } })).text();

  const raw = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(sample) });
    res.end(sample);
  });
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  const rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`;

  const headers = { authorization: `Bearer ${authToken}` };
  await autocannon(`${url}/account`, { headers, seconds: 2 }); // warm-up
  await autocannon(rawUrl, { seconds: 2 });
  // Rounds alternate between the two servers, and the median round is reported: on a small
  // machine a burst of other work during one run would otherwise decide the ratio.
  const rounds: Array<{ service: Run; baseline: Run }> = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push({ service: await measured(`${url}/account`, headers), baseline: await measured(rawUrl) });
  raw.close();

  if (PROFILE_FILE) {
    const profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
    await profiler.post('Profiler.start');
    await autocannon(`${url}/account`, { headers, seconds: SECONDS });
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    await writeFile(PROFILE_FILE, JSON.stringify(profile));
  }

  const cpu = (r: Run) => `   CPU ${r.cpuPerRequest.toFixed(1).padStart(5)} µs/req`;
  console.log(`\n## GET /account (authenticated, SQLite), body ${sample.length} bytes, 10 connections, ${ROUNDS} alternating rounds of ${SECONDS} s`);
  for (const [i, round] of rounds.entries()) {
    console.log(row(`round ${i + 1}: latchkey GET /account`, round.service) + cpu(round.service));
    console.log(row(`round ${i + 1}: raw node:http, same body`, round.baseline) + cpu(round.baseline));
  }
  const byRate = rounds.map((round) => round.service.requestsPerSecond / round.baseline.requestsPerSecond);
  const byCpu = rounds.map((round) => round.baseline.cpuPerRequest / round.service.cpuPerRequest);
  console.log(`ratios per round, req/s: ${byRate.map((r) => r.toFixed(2)).join(', ')}`);
  console.log(`ratios per round, CPU per request (raw ÷ latchkey): ${byCpu.map((r) => r.toFixed(2)).join(', ')}`);
  console.log(`server CPU per request, median: latchkey ${median(rounds.map((r) => r.service.cpuPerRequest)).toFixed(1)} µs, raw ${median(rounds.map((r) => r.baseline.cpuPerRequest)).toFixed(1)} µs`);
  console.log(`ratio (latchkey / raw), median round: ${median(byRate).toFixed(2)} by req/s, ${median(byCpu).toFixed(2)} by CPU per request  (target ≥ ${TARGET.toFixed(2)})`);
  if (PROFILE_FILE) console.log(`CPU profile of one more latchkey run: ${PROFILE_FILE}`);
} finally {
  await bench.close();
}
