// Authenticated GET /account against a raw node:http server answering a JSON body of the same
// size: the framework, authentication and database cost per request. Target: ratio >= 0.7.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { autocannon, row, startBenchService, type LoadResult } from './lib.js';

const ROUNDS = 5;

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
  const rounds: Array<{ service: LoadResult; baseline: LoadResult; ratio: number }> = [];
  for (let i = 0; i < ROUNDS; i++) {
    const service = await autocannon(`${url}/account`, { headers, seconds: 3 });
    const baseline = await autocannon(rawUrl, { seconds: 3 });
    rounds.push({ service, baseline, ratio: service.requestsPerSecond / baseline.requestsPerSecond });
  }
  raw.close();

  console.log(`\n## GET /account (authenticated, SQLite), body ${sample.length} bytes, 10 connections, ${ROUNDS} alternating rounds of 3 s`);
  for (const [i, round] of rounds.entries()) {
    console.log(row(`round ${i + 1}: latchkey GET /account`, round.service));
    console.log(row(`round ${i + 1}: raw node:http, same body`, round.baseline));
  }
  const median = rounds.map((round) => round.ratio).sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
  console.log(`ratios per round: ${rounds.map((round) => round.ratio.toFixed(2)).join(', ')}`);
  console.log(`ratio (latchkey / raw), median round: ${median.toFixed(2)}  (target >= 0.70)`);
} finally {
  await bench.close();
}
