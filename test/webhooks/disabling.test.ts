import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { eventually } from '../helpers/wait.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';

/** Issue 32 point 3: an endpoint failing for long is disabled, and its owner told. */
describe('webhook endpoints failing for long', () => {
  let t: TestService;
  let owner: TestUser;
  let sink: SmtpSink;

  before(async () => {
    sink = await startSmtpSink();
    t = await startTestService({
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_RETRY_MAX_MS: '200', WEBHOOK_POLL_MS: '50',
      SMTP_URL: sink.url, WEBHOOK_DISABLE_AFTER_FAILURES: '3', WEBHOOK_DISABLE_AFTER_S: '0',
    });
    owner = await createUser(t.api);
  });
  after(async () => {
    await t.close();
    await sink.close();
  });

  const endpoint = async (url: string) => {
    const res = await t.api.post('/webhook', { token: owner.authToken, body: { url } });
    assert.equal(res.status, 201, res.text);
    return res.body as { id: string; secret: string };
  };

  it('disables an endpoint after a long failing streak and emails its owner', async () => {
    const failing = await startWebhookReceiver();
    failing.answer = () => ({ status: 500 });
    try {
      const hook = await endpoint(failing.url);
      assert.equal((await t.api.post(`/webhook/${hook.id}/test`, { token: owner.authToken })).status, 202);
      const disabled = await eventually(async () => {
        const res = await t.api.get(`/webhook/${hook.id}`, { token: owner.authToken });
        return res.body.enabled === false ? res.body : undefined;
      }, 'disabled', 20_000);
      assert.match(disabled.disabledReason, /3 failed attempts in a row/);
      assert.equal(failing.all.length, 3);
      const mail = await sink.waitFor((m) => m.to.includes(owner.email) && /webhook endpoint was disabled/.test(m.subject));
      assert.ok(mail.text.includes(hook.id), mail.text);
      // Enabled again by its owner, it delivers what is still pending.
      failing.answer = () => ({ status: 204 });
      const enabled = await t.api.put(`/webhook/${hook.id}`, { token: owner.authToken, body: { enabled: true } });
      assert.equal(enabled.body.failureStreak, 0);
      assert.equal(enabled.body.disabledReason, null);
      await failing.until((r) => r.accepted.length === 1 || undefined, 'delivered once enabled');
    } finally {
      await failing.stop();
    }
  });
});
