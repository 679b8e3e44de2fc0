import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, revokeLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/** Settings that make retries quick enough for a test; the receiver is on 127.0.0.1, which the operator allows here. */
const FAST_WEBHOOKS = { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_RETRY_MAX_MS: '200', WEBHOOK_POLL_MS: '50' };

/** Issue 32 points 2 and 3: signed, durable deliveries, in order per lock. */
describe('webhook deliveries', () => {
  let t: TestService;
  let owner: TestUser;
  let receiver: WebhookReceiver;

  before(async () => {
    t = await startTestService(FAST_WEBHOOKS);
    owner = await createUser(t.api);
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await receiver.stop();
    await t.close();
  });

  const endpoint = async (body: Record<string, unknown> = {}, target = receiver) => {
    const res = await t.api.post('/webhook', { token: owner.authToken, body: { url: target.url, ...body } });
    assert.equal(res.status, 201, res.text);
    return res.body as { id: string; secret: string };
  };
  const ofLock = (deliveries: ReceivedDelivery[], lockId: string) => deliveries.filter((d) => d.event.data.lockId === lockId);

  it('signs each delivery as Standard Webhooks says (the reference verify accepts it) and carries the audit entry', async () => {
    const lock = await claimLock(t, owner);
    const hook = await endpoint({ lockIds: [lock.id] });
    const guest = await createUser(t.api);
    await shareLock(t, lock.id, owner, guest.userId);
    await revokeLock(t, lock.id, owner, [guest.userId]);
    const got = await receiver.until((r) => (ofLock(r.accepted, lock.id).length >= 2 ? ofLock(r.accepted, lock.id) : undefined), 'two deliveries');
    assert.deepEqual(got.map((d) => d.event.type), ['access.shared', 'access.revoked']);
    for (const delivery of got) {
      const verified = new Webhook(hook.secret).verify(delivery.body, delivery.headers) as ReceivedDelivery['event'];
      assert.equal(verified.type, delivery.event.type);
      assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(delivery.body, delivery.headers));
    }
    const shared = got[0]!.event.data;
    assert.equal(shared.entry.type, 'LOCK_SHARED');
    assert.equal(shared.entry.subjectUserId, guest.userId);
    assert.equal(typeof shared.entry.leafIndex, 'number');
    assert.ok(Array.isArray(shared.entry.proof));
    assert.ok(shared.checkpoint.treeSize > shared.entry.leafIndex);
    assert.match(shared.checkpoint.checkpoint, /^latchkey\.test|\n/);

    // The receiver answered before the outcome was recorded: wait for the record.
    const log = await eventually(async () => {
      const res = await t.api.get(`/webhook/${hook.id}/deliveries`, { token: owner.authToken });
      return res.body.deliveries.every((d: { state: string }) => d.state === 'delivered') ? res : undefined;
    }, 'both recorded as delivered');
    assert.equal(log.body.deliveries.length, 2);
    assert.equal(log.body.deliveries[0].log[0].status, 200);
    assert.equal(log.body.deliveries[0].log[0].responseExcerpt, 'ok');
    assert.equal(typeof log.body.deliveries[0].log[0].latencyMs, 'number');
    assert.deepEqual(new Set(log.body.deliveries.map((d: { id: string }) => d.id)), new Set(got.map((d) => d.headers['webhook-id'])));

    // After a rotation both secrets sign, so a receiver can switch over at its own pace.
    const rotated = await t.api.post(`/webhook/${hook.id}/secret`, { token: owner.authToken });
    await shareLock(t, lock.id, owner, guest.userId);
    const third = await receiver.until((r) => ofLock(r.accepted, lock.id)[2], 'the delivery after the rotation');
    assert.equal(third.headers['webhook-signature'].split(' ').length, 2);
    new Webhook(rotated.body.secret).verify(third.body, third.headers);
    new Webhook(hook.secret).verify(third.body, third.headers);
  });

  it('gets a receiver that was down everything afterwards, in order per lock, honouring Retry-After', async () => {
    const first = await claimLock(t, owner);
    const second = await claimLock(t, owner);
    const hook = await endpoint({ lockIds: [first.id, second.id], eventTypes: ['access.shared', 'access.revoked'] });
    const guests = await Promise.all([1, 2, 3].map(() => createUser(t.api)));
    await receiver.stop();
    for (const guest of guests) {
      await shareLock(t, first.id, owner, guest.userId);
      await shareLock(t, second.id, owner, guest.userId);
      await revokeLock(t, first.id, owner, [guest.userId]);
    }
    // Attempts fail while it is down (connection refused), and are logged.
    await eventually(async () => {
      const log = await t.api.get(`/webhook/${hook.id}/deliveries`, { token: owner.authToken });
      return log.body.deliveries.some((d: { log: Array<{ error: string | null }> }) => d.log.some((a) => a.error === 'ECONNREFUSED')) ? true : undefined;
    }, 'a refused attempt logged', 20_000);
    // Back up, but busy at first: a 503 with Retry-After, then it takes everything.
    let busy = 2;
    receiver.answer = () => (busy-- > 0 ? { status: 503, headers: { 'retry-after': '0' } } : { status: 200 });
    await receiver.start();
    const expected = { [first.id]: 6, [second.id]: 3 };
    await receiver.until((r) => Object.entries(expected).every(([lockId, n]) => new Set(ofLock(r.accepted, lockId).map((d) => d.headers['webhook-id'])).size === n) || undefined, 'everything', 60_000);
    receiver.answer = () => ({ status: 200 });
    for (const lockId of [first.id, second.id]) {
      const leaves = ofLock(receiver.accepted, lockId).map((d) => d.event.data.entry.leafIndex as number);
      assert.deepEqual(leaves, [...leaves].sort((a, b) => a - b), 'in order of the audit log');
      assert.equal(new Set(leaves).size, leaves.length, 'each once');
    }
    assert.deepEqual(ofLock(receiver.accepted, first.id).map((d) => d.event.type), ['access.shared', 'access.revoked', 'access.shared', 'access.revoked', 'access.shared', 'access.revoked']);
    assert.ok(receiver.all.some((d) => d.answered === 503));
  });

  it('sends a test event and redelivers on request (same webhook-id)', async () => {
    const hook = await endpoint({ eventTypes: ['door.unlocked'] });
    const sent = await t.api.post(`/webhook/${hook.id}/test`, { token: owner.authToken });
    assert.equal(sent.status, 202);
    const id = sent.body.deliveryId as string;
    const test = await receiver.until((r) => r.accepted.find((d) => d.headers['webhook-id'] === id), 'the test event');
    assert.equal(test.event.type, 'webhook.test');
    new Webhook(hook.secret).verify(test.body, test.headers);
    await eventually(async () => ((await t.api.get(`/webhook/${hook.id}/deliveries`, { token: owner.authToken })).body.deliveries[0]?.state === 'delivered' ? true : undefined), 'delivered');
    const again = await t.api.post(`/webhook/${hook.id}/deliveries/${id}/redeliver`, { token: owner.authToken });
    assert.equal(again.status, 200);
    assert.equal(again.body.state, 'pending');
    await receiver.until((r) => r.accepted.filter((d) => d.headers['webhook-id'] === id).length === 2 || undefined, 'the redelivery');
    assert.equal((await t.api.post(`/webhook/${hook.id}/deliveries/${hook.id}/redeliver`, { token: owner.authToken })).status, 404);
  });
});
