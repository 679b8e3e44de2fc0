import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { claimLock, createVerifiedUser } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { assertAllLabelled, assertNoSeriousAxeViolations, ensureConsoleBuilt, launchChromium, openTab, shoot, signInAs } from './browser.js';

/** Issue 32 point 6: endpoints, the delivery log, redelivery and a test event in the console. */
ensureConsoleBuilt();

describe('the console: webhooks', () => {
  const t = useService({ env: { CERT_CHECK: 'never', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', WEBHOOK_POLL_MS: '50' } });
  let browser: Browser;
  let receiver: WebhookReceiver;

  before(async () => {
    browser = await launchChromium({ service: t.service });
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await browser?.close();
    await receiver?.stop();
  });

  it('adds an endpoint (its secret shown once), sends a test event, shows the log and sends a delivery again', async () => {
    const owner = await createVerifiedUser(t);
    await claimLock(t, owner, { name: 'Loading bay' });
    const tab = await openTab(browser);
    const { page } = tab;
    await signInAs(tab, t.service.url, owner.email, owner.password);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Description').fill('Front desk');
    await page.getByLabel('Door unlocked').check();
    await page.getByLabel('Loading bay').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('code[data-secret]').textContent())!;
    assert.match(secret, /^whsec_/);
    const listed = (await t.api.get('/webhook', { token: owner.authToken })).body.endpoints;
    assert.deepEqual(listed.map((e: { eventTypes: string[] }) => e.eventTypes), [['door.unlocked']]);

    await page.getByRole('button', { name: 'Send a test event' }).click();
    const test = await receiver.until((r) => r.accepted[0], 'the test event');
    new Webhook(secret).verify(test.body, test.headers);
    await page.locator('tr[data-state="delivered"][data-event="webhook.test"]').waitFor();
    await assertAllLabelled(page);
    await assertNoSeriousAxeViolations(page);
    await shoot(page, 'webhooks');

    await page.getByRole('button', { name: 'Send again' }).click();
    await receiver.until((r) => r.accepted.length === 2 || undefined, 'the redelivery');
    assert.equal(receiver.accepted[1]!.headers['webhook-id'], test.headers['webhook-id']);

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('disabled', { exact: true }).waitFor();
    assert.equal((await t.api.get('/webhook', { token: owner.authToken })).body.endpoints[0].enabled, false);
    assert.deepEqual(tab.errors, []);
    await tab.context.close();
  });
});
