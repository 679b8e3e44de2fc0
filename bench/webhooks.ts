/**
 * Webhooks (issue 32): the time from an unlock's audit entry (the DOOR_UNLOCK an unlock records,
 * written as the unlock path writes it) to its delivery at a local receiver, p50/p99, sequentially;
 * then deliveries a second on one instance, a burst spread over LOCKS locks (deliveries of one
 * lock go one at a time, in order). Each with the default checkpoint interval (1 s: a delivery
 * waits for a signed checkpoint covering its entry) and with AUDIT_CHECKPOINT_INTERVAL_MS=0.
 * Run: npm run bench -- webhooks   (SQLite; LATCHKEY_TEST_DB=postgres for PostgreSQL)
 */
import { loadavg } from 'node:os';
import { recordAuditNow } from '../src/audit/record.js';
import { createUser } from '../test/helpers/factories.js';
import { claimLock } from '../test/helpers/locks.js';
import { startTestService } from '../test/helpers/service.js';
import { startWebhookReceiver } from '../test/helpers/webhook-receiver.js';

const ROUNDS = Number(process.env.ROUNDS ?? 200);
const BURST = Number(process.env.BURST ?? 2000);
const LOCKS = Number(process.env.LOCKS ?? 16);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (ms: number) => Math.round(ms * 10) / 10;

for (const interval of ['1000', '0']) {
  const t = await startTestService({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', AUDIT_CHECKPOINT_INTERVAL_MS: interval, RATE_REQUESTS_PER_CALLER: '100000000' });
  const receiver = await startWebhookReceiver();
  const arrivals = new Map<string, number>();
  receiver.answer = (delivery) => {
    arrivals.set(delivery.event.data.entry?.id as string, performance.now());
    return { status: 200 };
  };
  const owner = await createUser(t.api);
  const locks = await Promise.all(Array.from({ length: LOCKS }, () => claimLock(t, owner)));
  const hook = await t.api.post('/webhook', { token: owner.authToken, body: { url: receiver.url, eventTypes: ['door.unlocked'] } });
  if (hook.status !== 201) throw new Error(hook.text);

  const latencies: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    const started = performance.now();
    const entry = await recordAuditNow(t.service.ctx, { lockId: locks[i % LOCKS]!.id, type: 'DOOR_UNLOCK', actorUserId: owner.userId });
    await receiver.until(() => arrivals.has(entry.id) || undefined, 'the delivery', 60_000);
    latencies.push(arrivals.get(entry.id)! - started);
  }
  latencies.sort((a, b) => a - b);

  const before = receiver.accepted.length;
  const burstStarted = performance.now();
  for (let i = 0; i < BURST; i += 1) await recordAuditNow(t.service.ctx, { lockId: locks[i % LOCKS]!.id, type: 'DOOR_UNLOCK', actorUserId: owner.userId });
  const recorded = performance.now() - burstStarted;
  await receiver.until((r) => r.accepted.length - before >= BURST || undefined, 'the burst', 600_000);
  const elapsed = performance.now() - burstStarted;
  console.log(JSON.stringify({
    bench: 'webhooks',
    database: t.service.ctx.db.dialect,
    checkpointIntervalMs: Number(interval),
    unlockToWebhook: { rounds: ROUNDS, p50Ms: round(percentile(latencies, 50)), p99Ms: round(percentile(latencies, 99)) },
    burst: { deliveries: BURST, locks: LOCKS, recordedInMs: round(recorded), deliveredInMs: round(elapsed), deliveriesPerSecond: Math.round((BURST / elapsed) * 1000) },
    loadAverage1m: Math.round(loadavg()[0]! * 10) / 10,
  }));
  await receiver.stop();
  await t.close();
}
