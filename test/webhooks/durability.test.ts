import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, revokeLock, shareLock } from '../helpers/locks.js';
import { freePort } from '../helpers/ports.js';
import { spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { startInstanceBeside, startTestService, TEST_BASE_URL, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const FAST_WEBHOOKS = { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_RETRY_MAX_MS: '200', WEBHOOK_POLL_MS: '50' };

/** The first acceptance of each delivery, in order of arrival. */
function firstAccepted(receiver: WebhookReceiver): ReceivedDelivery[] {
  const seen = new Set<string>();
  return receiver.accepted.filter((d) => !seen.has(d.headers['webhook-id']) && seen.add(d.headers['webhook-id']));
}

/** Issue 32 point 3: nothing lost across a kill -9; one delivery per event with two instances. */
describe('webhook durability', () => {
  let t: TestService;
  let owner: TestUser;
  let receiver: WebhookReceiver;
  const children: ServeProcess[] = [];

  before(async () => {
    t = await startTestService(FAST_WEBHOOKS);
    owner = await createUser(t.api);
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    for (const { child, exited } of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    }
    await receiver.stop();
    await t.close();
  });

  it('loses nothing when the service is killed with SIGKILL in the middle of deliveries', async () => {
    const lock = await claimLock(t, owner);
    const hook = await t.api.post('/webhook', { token: owner.authToken, body: { url: receiver.url, lockIds: [lock.id], eventTypes: ['access.shared', 'access.revoked'] } });
    assert.equal(hook.status, 201);
    await receiver.stop();
    const guests = await Promise.all([1, 2, 3].map(() => createUser(t.api)));
    for (const guest of guests) {
      await shareLock(t, lock.id, owner, guest.userId);
      await revokeLock(t, lock.id, owner, [guest.userId]);
    }
    // Stopped at once: what it had not fanned out stays in the outbox, the rest pending.
    await t.service.close();

    let answered = 0;
    receiver.answer = () => (answered++ < 2 ? { status: 200 } : 'hold');
    await receiver.start();
    const env = {
      ...FAST_WEBHOOKS,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      BASE_URL: TEST_BASE_URL,
      DATA_DIR: t.dataDir,
      DATABASE_URL: t.database.url,
      MQTT_PORT: '0',
    };
    const first = spawnServe(env);
    children.push(first);
    // Two delivered, the third in flight (the receiver holds it): kill the service there.
    await receiver.until((r) => r.all.length >= 3 || undefined, `the third delivery (${first.stderr()})`, 60_000);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    receiver.releaseHeld();
    receiver.answer = () => ({ status: 200 });

    const second = spawnServe({ ...env, PORT: String(await freePort()) });
    children.push(second);
    const all = await receiver.until((r) => (firstAccepted(r).length === 6 ? firstAccepted(r) : undefined), `all six (${second.stderr()})`, 60_000);
    const leaves = all.map((d) => d.event.data.entry.leafIndex as number);
    assert.deepEqual(leaves, [...leaves].sort((a, b) => a - b), 'in order of the audit log');
    assert.deepEqual(all.map((d) => d.event.type), ['access.shared', 'access.revoked', 'access.shared', 'access.revoked', 'access.shared', 'access.revoked']);
    // The one in flight when the process died is delivered again (at least once), under the same id.
    const interrupted = receiver.all[2]!.headers['webhook-id'];
    assert.ok(receiver.all.filter((d) => d.headers['webhook-id'] === interrupted).length >= 2);
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0, second.stderr());
  });
});

describe('webhooks on two instances (PostgreSQL)', () => {
  let t: TestService;
  let receiver: WebhookReceiver;

  before(async () => {
    t = await startTestService(FAST_WEBHOOKS);
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await receiver.stop();
    await t.close();
  });

  it('delivers each event once, whichever instance makes the attempt', async (test) => {
    if (t.config.database.kind !== 'postgres') return test.skip('SQLite serves one instance');
    const other = await startInstanceBeside(t);
    try {
      const owner = await createUser(t.api);
      const locks = await Promise.all([1, 2, 3].map(() => claimLock(t, owner)));
      const hook = await t.api.post('/webhook', { token: owner.authToken, body: { url: receiver.url, eventTypes: ['access.shared'] } });
      assert.equal(hook.status, 201);
      const guests = await Promise.all([1, 2, 3, 4, 5].map(() => createUser(t.api)));
      for (const guest of guests) for (const lock of locks) await shareLock(t, lock.id, owner, guest.userId);
      await receiver.until((r) => r.accepted.length >= 15 || undefined, 'fifteen deliveries', 60_000);
      // Both instances are quiet once every delivery is recorded: none is pending any more.
      const db = t.service.ctx.db.kysely;
      const pending = async () => (await db.selectFrom('webhook_deliveries').select('id').where('state', '=', 'pending').execute()).length;
      await eventually(async () => ((await pending()) === 0 ? true : undefined), 'every delivery recorded', 30_000);
      assert.equal(receiver.all.length, 15, 'each delivered once');
      assert.equal(new Set(receiver.all.map((d) => d.headers['webhook-id'])).size, 15);
      for (const lock of locks) {
        const leaves = receiver.all.filter((d) => d.event.data.lockId === lock.id).map((d) => d.event.data.entry.leafIndex as number);
        assert.deepEqual(leaves, [...leaves].sort((a, b) => a - b));
      }
    } finally {
      await other.close();
    }
  });
});
