// Authenticated GET /account against a raw node:http server answering a JSON body of the same
// size: the framework, authentication and database cost per request. Target: ratio >= 0.7.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { autocannon, row, startBenchService } from './lib.js';

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
  const service = await autocannon(`${url}/account`, { headers });
  await autocannon(rawUrl, { seconds: 2 });
  const baseline = await autocannon(rawUrl);
  raw.close();

  console.log(`\n## GET /account (authenticated, SQLite), body ${sample.length} bytes, 10 connections, 5 s`);
  console.log(row('latchkey GET /account', service));
  console.log(row('raw node:http, same body', baseline));
  console.log(`ratio (latchkey / raw): ${(service.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)}  (target >= 0.70)`);
} finally {
  await bench.close();
}
