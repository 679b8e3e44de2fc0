// Reconciliation at scale (issue 16): a service with 10,000 claimed locks (two members each)
// republishes every configuration, as it does on each connection to its broker, while a lock
// keeps answering commands. Figures: republish time, and the command round trip (LockLink
// sendCommand → lock → reply) p50/p99 before and during. Embedded broker, SQLite, one process.
// Not a test. Run: node --import tsx bench/config-republish.ts  (or npm run bench -- republish)
import type { Socket } from 'node:net';
import { connectAsync } from 'mqtt';
import { republishAllConfigs } from '../src/lock-link/config-sync.js';
import { provisionLock } from '../src/locks/provision.js';
import { Api } from '../test/helpers/http.js';
import { createUser } from '../test/helpers/factories.js';
import { percentile, startBenchService } from './lib.js';

const LOCKS = 10_000;
const bench = await startBenchService({ MQTT_CONFIG_SWEEP_SECONDS: '0' });
const { ctx } = bench.service;
const api = new Api(bench.service.url);
const [admin, member] = [await createUser(api), await createUser(api)];

const now = Date.now() / 1000;
let probe: { id: string; secret: string } | undefined;
for (let i = 0; i < LOCKS; i += 500) {
  await ctx.db.kysely.transaction().execute(async (trx) => {
    for (let j = i; j < Math.min(LOCKS, i + 500); j++) {
      const lock = await provisionLock(trx, { name: `Bench ${j}` }, now);
      probe ??= lock;
      await trx.updateTable('locks').set({ claimed_at: now, owner_user_id: admin.userId }).where('id', '=', lock.id).execute();
      await trx.insertInto('lock_members').values([
        { lock_id: lock.id, user_id: admin.userId, role: 'ADMIN', starts_at: null, ends_at: null, alias: null, colour: null, created: now, updated: now },
        { lock_id: lock.id, user_id: member.userId, role: 'USER', starts_at: null, ends_at: null, alias: null, colour: null, created: now, updated: now },
      ]).execute();
    }
  });
}

// The probe lock answers every command at once.
const lockId = probe!.id;
const lock = await connectAsync(`mqtt://127.0.0.1:${ctx.broker!.port}`, { clientId: lockId, username: lockId, password: probe!.secret, protocolVersion: 4 }, false);
(lock.stream as Socket).setNoDelay(true);
lock.on('message', (topic, payload) => {
  if (!topic.endsWith('/command')) return;
  const { id } = JSON.parse(payload.toString()) as { id: string };
  lock.publish(`locks/${lockId}/reply`, JSON.stringify({ id, ok: true }), { qos: 1 });
});
await lock.subscribeAsync(`locks/${lockId}/command`, { qos: 1 });
await lock.publishAsync(`locks/${lockId}/online`, '{"online":true}', { qos: 1, retain: true });
while (!ctx.link.isOnline(lockId)) await new Promise((resolve) => setTimeout(resolve, 5));

const token = 'x'.repeat(900);
const operation = { type: 'MUTATE_LOCK', locked: false };
async function roundTrips(until: () => boolean, max = 100_000): Promise<number[]> {
  const samples: number[] = [];
  while (!until() && samples.length < max) {
    const start = process.hrtime.bigint();
    await ctx.link.sendCommand(lockId, token, operation);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    await new Promise((resolve) => setTimeout(resolve, 2)); // an unlock every few ms, not a flood
  }
  return samples.sort((a, b) => a - b);
}

await new Promise((resolve) => setTimeout(resolve, 3000)); // the start-up republish is over
const idle = await roundTrips(() => false, 500);

let done = false;
const started = Date.now();
const republish = republishAllConfigs(ctx, () => false, { pageSize: 200, perSecond: ctx.config.lockOps.republishPerSecond }).then((count) => {
  done = true;
  return count;
});
const during = await roundTrips(() => done);
const count = await republish;
const seconds = (Date.now() - started) / 1000;

const fmt = (s: number[]) => `p50 ${percentile(s, 50).toFixed(2)} ms   p99 ${percentile(s, 99).toFixed(2)} ms   (${s.length} commands)`;
console.log(`config republish: ${count} locks in ${seconds.toFixed(2)} s (${(count / seconds).toFixed(0)}/s, limit ${ctx.config.lockOps.republishPerSecond}/s)`);
console.log(`  command round trip idle          ${fmt(idle)}`);
console.log(`  command round trip during        ${fmt(during)}`);
console.log(`  p99 delay added                  ${(percentile(during, 99) - percentile(idle, 99)).toFixed(2)} ms`);

await lock.endAsync();
await bench.close();
