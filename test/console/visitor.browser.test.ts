import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { certify, execute, signed } from '../execute/support.js';
import { uniqueEmail } from '../helpers/factories.js';
import { auditEntriesOf, claimLock, createVerifiedUser } from '../helpers/locks.js';
import { sdkRequest } from '../helpers/sdk-wire.js';
import { useService } from '../helpers/service.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { ensureConsoleBuilt, launchChromium, openTab, shoot } from './browser.js';

/**
 * Issue 28 point 6, the visitor's walk in Chromium: an administrator invites an address with
 * `?visitor=true` (as the SDK sends it) and shares a door with it; the visitor opens the emailed
 * link in a browser and, with no password, no app and no code (the service's default CERT_CHECK),
 * unlocks the door from the page it leads to.
 */
ensureConsoleBuilt();

describe('the console: a visitor from the emailed link to an unlock', () => {
  const t = useService({ withMail: true });
  let browser: Browser;
  let device: TestLock | undefined;

  before(async () => {
    browser = await launchChromium({ service: t.service });
  });
  after(async () => {
    await device?.close();
    await browser?.close();
  });

  it('opens the visitor pass from the email and unlocks the shared door', async () => {
    const admin = await certify(t, await createVerifiedUser(t));
    const lock = await claimLock(t, admin, { name: 'Studio door' });
    const email = uniqueEmail('visitor');
    const invited = await sdkRequest(t.api, 'POST', `/share/invite/${encodeURIComponent(email)}?visitor=true&device=${lock.id}`, { token: admin.authToken });
    assert.equal(invited.status, 200, invited.text);
    const share = signed(admin, lock.id, { type: 'ADD_USER', user: invited.body.id, publicKey: invited.body.publicKey, role: 'USER' });
    assert.equal((await execute(t, admin, lock.id, share)).status, 200);
    device = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: lock.id, secret: lock.secret });

    const mail = await t.sink.waitFor((m) => m.to.includes(email));
    const link = /\/console\/visit#([A-Za-z0-9_-]+)/.exec(mail.text);
    assert.ok(link, mail.text);
    const tab = await openTab(browser);
    const { page } = tab;
    await page.goto(`${t.service.url}${link[0]}`);
    await page.getByRole('heading', { name: 'Locks', exact: true }).waitFor();
    await page.getByText('Your visitor pass is in this browser').waitFor();
    assert.ok(!page.url().includes(link[1]!), 'the secret left the address bar');
    await page.getByText(/Certified until/).waitFor();

    const card = page.locator('li.lock', { has: page.getByRole('link', { name: 'Studio door' }) });
    await card.getByText('connected').waitFor();
    await card.getByRole('button', { name: 'Unlock Studio door' }).click();
    await card.getByText('Studio door confirmed: unlocked.').waitFor();
    assert.equal(device.commands.length, 1, 'the lock received the signed command');
    const unlocks = (await auditEntriesOf(t, lock.id)).filter((e) => e.type === 'DOOR_UNLOCK' && e.rejected === 0);
    assert.deepEqual(unlocks.map((e) => e.actor_user_id), [invited.body.id], 'unlocked by the visitor');
    await shoot(page, 'visitor');

    // The link works once: opened again it says so.
    const again = await openTab(browser, [400]);
    await again.page.goto(`${t.service.url}${link[0]}`);
    await again.page.getByText(/invalid, used or expired/).waitFor();
    assert.deepEqual([...tab.errors, ...again.errors], []);
    await tab.context.close();
    await again.context.close();
  });
});
