/**
 * Fan-out of live events: 1,000 open GET /device/events streams on one lock (one member), one
 * audit entry, time until the last stream has it. Target ≤ 200 ms.
 * Run: node --import tsx bench/sse-fanout.ts   (SQLite; LATCHKEY_TEST_DB=postgres for PostgreSQL)
 */
import http from 'node:http';
import { recordAuditNow } from '../src/audit/record.js';
import { createUser } from '../test/helpers/factories.js';
import { claimLock } from '../test/helpers/locks.js';
import { startTestService } from '../test/helpers/service.js';

const STREAMS = Number(process.env.STREAMS ?? 1000);
const ROUNDS = 5;

const t = await startTestService({ RATE_REQUESTS_PER_CALLER: '100000000' });
const user = await createUser(t.api);
const lock = await claimLock(t, user);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const url = new URL(`${t.service.url}/device/events?device=${lock.id}`);

type Waiter = { seen: number; onEvent: () => void };
const clients: Waiter[] = [];
const requests: http.ClientRequest[] = [];
await Promise.all(Array.from({ length: STREAMS }, () => new Promise<void>((resolve, reject) => {
  const client: Waiter = { seen: 0, onEvent: () => undefined };
  const req = http.get(url, { agent, headers: { authorization: `Bearer ${user.authToken}`, accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const events = chunk.split('\nevent: ').length - 1 + (chunk.startsWith('event: ') ? 1 : 0);
      if (events > 0) {
        client.seen += events;
        client.onEvent();
      }
    });
    resolve();
  });
  req.on('error', () => undefined);
  requests.push(req);
  clients.push(client);
})));

const timings: number[] = [];
for (let round = 1; round <= ROUNDS; round += 1) {
  const started = performance.now();
  const all = Promise.all(clients.map((c) => new Promise<void>((resolve) => {
    if (c.seen >= round) return resolve();
    c.onEvent = () => { if (c.seen >= round) resolve(); };
  })));
  await recordAuditNow(t.service.ctx, { lockId: lock.id, type: 'DOOR_OPEN', actorUserId: null });
  await all;
  timings.push(performance.now() - started);
}
const sorted = [...timings].sort((a, b) => a - b);
console.log(JSON.stringify({
  database: t.service.ctx.db.dialect,
  streams: STREAMS,
  rounds: ROUNDS,
  lastStreamMs: timings.map((ms) => Math.round(ms * 10) / 10),
  medianMs: Math.round(sorted[Math.floor(sorted.length / 2)]! * 10) / 10,
  targetMs: 200,
}));
for (const req of requests) req.destroy();
agent.destroy();
await t.close();
