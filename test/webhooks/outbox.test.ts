import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WEBHOOK_OUTBOX_CHANNEL } from '../../src/webhooks/outbox.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, revokeLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// The poll also lets a delivery waiting for its checkpoint go: kept short.
const WEBHOOKS = { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_RETRY_MAX_MS: '200', WEBHOOK_POLL_MS: '50' };

/** Issue 33 point 3: an audit entry costs the webhooks nothing while no endpoint could take it. */
describe('webhook outbox', () => {
  let t: TestService;
  let owner: TestUser;
  let receiver: WebhookReceiver;
  /** The worker's wake-ups for new entries (the in-process bus delivers within publish). */
  const wakeUps: unknown[] = [];

  before(async () => {
    t = await startTestService(WEBHOOKS);
    owner = await createUser(t.api);
    receiver = await startWebhookReceiver();
    t.service.ctx.bus.subscribe(WEBHOOK_OUTBOX_CHANNEL, (message) => void wakeUps.push(message));
  });
  after(async () => {
    await receiver.stop();
    await t.close();
  });

  const outboxRows = async () => (await t.service.ctx.db.kysely.selectFrom('webhook_outbox').select('audit_seq').execute()).length;

  it('writes no outbox row and wakes no worker while no endpoint is enabled, and delivers once one is', async () => {
    const lock = await claimLock(t, owner);
    const guest = await createUser(t.api);
    await shareLock(t, lock.id, owner, guest.userId);
    await revokeLock(t, lock.id, owner, [guest.userId]);
    assert.equal(await outboxRows(), 0);
    assert.deepEqual(wakeUps, []);

    const created = await t.api.post('/webhook', { token: owner.authToken, body: { url: receiver.url, lockIds: [lock.id], enabled: false } });
    assert.equal(created.status, 201, created.text);
    await shareLock(t, lock.id, owner, guest.userId);
    assert.equal(await outboxRows(), 0, 'a disabled endpoint takes nothing');
    assert.deepEqual(wakeUps, []);

    const enabled = await t.api.put(`/webhook/${created.body.id}`, { token: owner.authToken, body: { enabled: true } });
    assert.equal(enabled.status, 200, enabled.text);
    await revokeLock(t, lock.id, owner, [guest.userId]);
    assert.equal(wakeUps.length, 1, 'the entry written to the outbox wakes the worker');
    const got = await receiver.until((r) => r.accepted[0], 'the delivery');
    assert.equal(got.event.type, 'access.revoked');
    assert.equal(receiver.accepted.length, 1, 'the entries recorded while no endpoint was enabled are not delivered');
  });
});
