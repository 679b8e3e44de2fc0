import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createSite, provisionLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { assertAllLabelled, certifyBrowser, ensureConsoleBuilt, launchChromium, openTab, PASSWORD, registerAndVerify, shoot } from './browser.js';

/**
 * The console end to end in headless Chromium against the real service (SMTP sink, embedded
 * broker) and a lock on MQTT: register, verify the email, certify the browser's key with the
 * emailed code, claim, unlock live, share with a second person who unlocks, revoke (the lock
 * leaves their console live), the audit trail, and the developer pages.
 */
ensureConsoleBuilt();

const alice = `alice-${process.pid}@example.com`;
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40"><rect width="120" height="40" rx="8" fill="#1f4e79"/><text x="60" y="27" font-family="sans-serif" font-size="20" fill="#fff" text-anchor="middle">ACME</text></svg>';
const bob = `bob-${process.pid}@example.com`;

function lockItem(page: Page, name: string) {
  return page.locator('li.lock', { has: page.getByRole('link', { name }) });
}

describe('the web console', () => {
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

  it('first load transfers at most 40 KiB compressed and shows sign-in', async () => {
    const tab = await openTab(browser);
    const cdp = await tab.context.newCDPSession(tab.page);
    await cdp.send('Network.enable');
    let bytes = 0;
    cdp.on('Network.loadingFinished', (event: { encodedDataLength: number }) => {
      bytes += event.encodedDataLength;
    });
    await tab.page.goto(`${t.service.url}/console/`, { waitUntil: 'networkidle' });
    await tab.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.ok(bytes > 0 && bytes <= 40 * 1024, `first load transferred ${bytes} bytes`);
    console.log(`first load: ${bytes} bytes transferred`);
    await assertAllLabelled(tab.page);
    await shoot(tab.page, 'sign-in');
    assert.deepEqual(tab.errors, []);
    await tab.context.close();
  });

  it('register → verify → certify → claim → unlock live → share → second user unlocks → revoke → audit', async () => {
    const base = t.service.url;
    const a = await openTab(browser, [403, 423, 503]);
    const b = await openTab(browser, [423]);

    await registerAndVerify(a, base, t.sink, alice);
    await certifyBrowser(a, base, t.sink, alice, 'certify-code');
    await assertAllLabelled(a.page);

    // Claim with the registration key, then let the lock come online: the list changes without a reload.
    const site = await createSite(t, { name: 'Head office' });
    const provisioned = await provisionLock(t, { name: 'Factory name', siteId: site.id });
    await a.page.getByLabel('Registration key').fill(provisioned.registrationKey);
    await a.page.getByLabel('Name', { exact: true }).fill('Front door');
    await a.page.getByRole('button', { name: 'Claim' }).click();
    const card = lockItem(a.page, 'Front door');
    await card.waitFor();
    await card.getByText('offline').waitFor();
    await a.page.getByRole('region', { name: 'Head office' }).getByRole('link', { name: 'Front door' }).waitFor();
    device = await connectTestLock({
      url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: provisioned.id, secret: provisioned.secret,
      device: { kind: 'zwave', capabilities: ['doorSensor', 'battery'] }, health: { battery: 64 },
    });
    await card.getByText('connected').waitFor();

    await card.getByRole('button', { name: 'Unlock Front door' }).click();
    await card.getByText('Front door confirmed: unlocked.').waitFor();
    await card.getByText('unlocked', { exact: true }).waitFor();
    // A bridged lock like any other, with its kind, battery and door sensor (device protocol 1.2), as the list shows it when read again.
    await a.page.reload();
    await card.getByText('Z-Wave', { exact: true }).waitFor();
    await card.getByText('battery 64%').waitFor();
    await card.getByText('door closed').waitFor();
    assert.equal(device.commands.length, 1, 'the lock received the signed command');
    await shoot(a.page, 'locks');

    // Bob registers in his own browser; Alice shares with him by email.
    await registerAndVerify(b, base, t.sink, bob);
    await certifyBrowser(b, base, t.sink, bob);
    await card.getByRole('link', { name: 'Front door' }).click();
    await a.page.getByRole('link', { name: 'Members' }).click();
    await a.page.getByLabel('Email of the person to share with').fill(bob);
    await a.page.getByRole('button', { name: 'Share', exact: true }).click();
    await a.page.getByText(`Shared with ${bob}.`).waitFor();
    await a.page.locator(`li.member[data-user="${bob}"]`).waitFor();
    // Change Bob's role and window, then back to USER without one.
    await a.page.getByRole('button', { name: `Change role or window of ${bob}` }).click();
    await a.page.getByLabel('Role', { exact: true }).first().selectOption('ADMIN');
    await a.page.getByLabel('Ends', { exact: true }).fill('2099-12-31T18:00');
    await a.page.getByRole('button', { name: 'Save', exact: true }).click();
    await a.page.locator(`li.member[data-user="${bob}"]`).getByText('ADMIN').waitFor();
    await a.page.locator(`li.member[data-user="${bob}"]`).getByText(/until .*2099/).waitFor();
    await a.page.getByRole('button', { name: `Change role or window of ${bob}` }).click();
    await a.page.getByLabel('Role', { exact: true }).first().selectOption('USER');
    await a.page.getByLabel('Ends', { exact: true }).fill('');
    await a.page.getByRole('button', { name: 'Save', exact: true }).click();
    await a.page.locator(`li.member[data-user="${bob}"]`).getByText('No time limit').waitFor();
    await assertAllLabelled(a.page);
    await shoot(a.page, 'members');

    await b.page.goto(`${base}/console/`);
    const bobCard = lockItem(b.page, 'Front door');
    await bobCard.getByRole('button', { name: 'Unlock Front door' }).click();
    await bobCard.getByText('Front door confirmed: unlocked.').waitFor();
    assert.equal(device.commands.length, 2);

    // Alice, an admin, reads Bob's trail from the members list.
    await a.page.getByRole('link', { name: `Activity of ${bob}` }).click();
    await a.page.getByRole('heading', { name: `Activity of ${bob}` }).waitFor();
    await a.page.locator('tr[data-type="DOOR_UNLOCK"]').first().waitFor();
    await a.page.goBack();

    // Alice revokes Bob: his console drops the lock live.
    await a.page.getByRole('button', { name: `Revoke ${bob}` }).click();
    await a.page.getByRole('button', { name: `Yes, revoke ${bob}` }).click();
    await a.page.locator(`li.member[data-user="${bob}"]`).waitFor({ state: 'detached' });
    await bobCard.waitFor({ state: 'detached' });
    await b.page.getByText('You have no locks yet').waitFor();

    // The audit trail lists all of it.
    await a.page.getByRole('link', { name: 'Audit' }).click();
    for (const type of ['OWNER_ASSIGNED', 'DEVICE_CONNECTED', 'DOOR_UNLOCK', 'LOCK_SHARED', 'LOCK_REVOKED']) {
      await a.page.locator(`tr[data-type="${type}"]`).first().waitFor();
    }
    assert.ok((await a.page.locator('tr[data-type="DOOR_UNLOCK"]').count()) >= 2, 'both unlocks');
    await a.page.getByRole('cell', { name: bob }).first().waitFor();
    const download = a.page.waitForEvent('download');
    await a.page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = await (await download).createReadStream();
    let text = '';
    for await (const chunk of csv) text += chunk;
    assert.match(text, /^time \(UTC\),who,what,lock,detail,refused\r\n/);
    assert.match(text, /LOCK_REVOKED/);
    // Checked in the browser against the signed checkpoint: signature, preimage, inclusion proof.
    await a.page.getByRole('status').getByText(/^✓ All \d+ entries verified against checkpoint \d+, signed by latchkey\.test\/audit\.$/).waitFor();
    assert.equal(await a.page.locator('tr[data-verified]:not([data-verified="verified"])').count(), 0);
    await assertAllLabelled(a.page);
    await shoot(a.page, 'audit');

    // The lock loses power while the trail is open: the entry arrives live.
    assert.equal(await a.page.locator('tr[data-type="DEVICE_DISCONNECTED"]').count(), 0);
    await device.powerCut();
    device = undefined;
    await a.page.locator('tr[data-type="DEVICE_DISCONNECTED"]').first().waitFor();
    // The live entry is checked too, once the next checkpoint (within a second) signs it.
    await a.page.locator('tr[data-type="DEVICE_DISCONNECTED"][data-verified="verified"]').first().waitFor();

    // Offline: the badge shows it, and an unlock says so plainly (503).
    await a.page.getByRole('link', { name: 'Overview' }).click();
    await a.page.getByText('offline', { exact: true }).first().waitFor();
    await a.page.getByRole('button', { name: 'Unlock Front door' }).click();
    await a.page.getByText(/The lock is offline/).waitFor();

    // Settings page renders its forms, labelled.
    await a.page.getByRole('link', { name: 'Settings' }).click();
    await a.page.getByLabel('Unlock duration (seconds)').fill('7');
    await a.page.getByRole('button', { name: 'Save unlocking' }).click();
    await a.page.getByText('Settings sent to the lock.').waitFor();
    await assertAllLabelled(a.page);
    await a.page.getByLabel('Only near the lock').check();
    await a.page.getByLabel('Latitude').fill('51.5072');
    await a.page.getByLabel('Longitude').fill('-0.1276');
    await a.page.getByLabel('Radius (metres)').fill('150');
    await a.page.getByLabel('Permitted addresses').fill('192.0.2.0/24');
    await a.page.getByRole('button', { name: 'Save requirements' }).click();
    await a.page.getByText('Requirements saved.').waitFor();
    await shoot(a.page, 'settings');

    // Favourite, from the overview.
    await a.page.getByRole('link', { name: 'Overview' }).click();
    await a.page.getByLabel('Favourite').click();
    await a.page.getByText('Added to favourites.').waitFor();

    // Back in the list, favourite; an unlock (with the position the location requirement asks for)
    // from outside the permitted addresses is refused, and says why.
    await a.context.grantPermissions(['geolocation']);
    await a.context.setGeolocation({ latitude: 51.5072, longitude: -0.1276, accuracy: 10 });
    await a.page.getByRole('link', { name: '← Locks' }).click();
    await card.getByText('★ favourite').waitFor();
    await card.getByRole('button', { name: 'Unlock Front door' }).click();
    await card.getByRole('alert').getByText(/not allowed/).waitFor();

    // Her own trail shows the refusal as refused.
    await a.page.getByRole('link', { name: 'Activity' }).click();
    await a.page.locator('tr.refused[data-type="DOOR_UNLOCK"]').first().waitFor();
    assert.ok((await a.page.locator('tr[data-type="DOOR_UNLOCK"]').count()) >= 2);
    await assertAllLabelled(a.page);
    await shoot(a.page, 'activity');

    assert.deepEqual(a.errors, [], 'no console errors in the first browser');
    assert.deepEqual(b.errors, [], 'no console errors in the second browser');
    await a.context.close();
    await b.context.close();
  });

  it('the developer pages: create an application, brand it, upload a logo, add issuers and a CORS origin', async () => {
    const base = t.service.url;
    const tab = await openTab(browser, [401]);
    // Signed out, a page of the console leads to sign-in, and back to that page afterwards.
    await tab.page.goto(`${base}/console/apps`);
    await tab.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.match(tab.page.url(), /\/console\/signin\?next=%2Fapps$/);
    await tab.page.getByLabel('Email').fill(alice);
    await tab.page.getByLabel('Password').fill('wrong password');
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
    await tab.page.getByRole('alert').getByText(/not signed in|refused|password/i).waitFor();
    await tab.page.getByLabel('Password').fill(PASSWORD);
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
    await tab.page.getByRole('heading', { name: 'Developers' }).waitFor();
    await tab.page.getByLabel('Application name').fill('Acme Doors');
    await tab.page.getByLabel('Company name').fill('Acme Ltd');
    await tab.page.getByLabel('Mailing address').fill('ops@acme.example');
    await tab.page.getByRole('button', { name: 'Create application' }).click();
    await tab.page.getByRole('heading', { name: 'Acme Doors', exact: true }).waitFor();
    await tab.page.getByLabel('Sender name').fill('Acme Access');
    await tab.page.getByRole('button', { name: 'Save branding' }).click();
    await tab.page.getByText('Branding saved.').waitFor();
    await tab.page.getByText('From: Acme Access').waitFor();
    await tab.page.getByLabel('New CORS origin').fill('https://app.acme.example');
    await tab.page.getByRole('button', { name: 'Add CORS origin' }).click();
    await tab.page.getByText('https://app.acme.example').waitFor();
    const jwk = { ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }), kid: 'acme-2026' };
    await tab.page.getByLabel('Public key (JWK)').fill(JSON.stringify(jwk));
    await tab.page.getByRole('button', { name: 'Add key' }).click();
    await tab.page.getByRole('button', { name: 'Remove key acme-2026' }).waitFor();
    // A logo: uploaded to the signed URL on BASE_URL's host (another origin than the console's
    // here, as an S3 bucket or CDN host would be), then shown from CDN_URL in the preview.
    await tab.page.getByLabel('Logo (PNG, JPEG or SVG)').setInputFiles({ name: 'acme.svg', mimeType: 'image/svg+xml', buffer: Buffer.from(LOGO_SVG) });
    await tab.page.getByText('Logo uploaded.').waitFor();
    const logo = tab.page.getByRole('img', { name: 'Acme Doors logo' });
    await logo.waitFor();
    await tab.page.waitForFunction(`document.querySelector('img[alt="Acme Doors logo"]')?.naturalWidth > 0`);
    assert.match(String(await logo.getAttribute('src')), /^http:\/\/latchkey\.test\/cdn\/applications\/[0-9a-f-]+\/logo-[0-9a-f]{32}\.svg$/);
    // Issuers: added and removed.
    await tab.page.getByLabel('New issuer').fill('https://auth.acme.example');
    await tab.page.getByRole('button', { name: 'Add issuer' }).click();
    await tab.page.getByRole('button', { name: 'Remove https://auth.acme.example' }).waitFor();
    await tab.page.getByLabel('New issuer').fill('https://old-auth.acme.example');
    await tab.page.getByRole('button', { name: 'Add issuer' }).click();
    await tab.page.getByRole('button', { name: 'Remove https://old-auth.acme.example' }).click();
    await tab.page.getByRole('button', { name: 'Remove https://old-auth.acme.example' }).waitFor({ state: 'detached' });
    const apps = await t.api.get('/platform/application', { token: (await t.api.post('/auth/token', { body: { email: alice, password: PASSWORD } })).body.authToken });
    const acme = apps.body.find((app: { name: string }) => app.name === 'Acme Doors');
    assert.deepEqual(acme.authDomains, ['https://auth.acme.example']);
    assert.equal(acme.logoUrl, await logo.getAttribute('src'));
    await tab.page.getByLabel('Public key (JWK)').fill('{"kty":"RSA"');
    await tab.page.getByRole('button', { name: 'Add key' }).click();
    await tab.page.getByText('The key must be a JSON Web Key (JSON).').waitFor();
    await assertAllLabelled(tab.page);
    await shoot(tab.page, 'application');

    // The account page: display name and password change.
    await tab.page.getByRole('link', { name: 'Account' }).click();
    await tab.page.getByLabel('Display name', { exact: true }).fill('Alice Example');
    await tab.page.getByRole('button', { name: 'Save name' }).click();
    await tab.page.getByText('Display name saved.').waitFor();
    await tab.page.getByLabel('Current password').fill(PASSWORD);
    await tab.page.getByLabel('New password').fill(`${PASSWORD} 2`);
    await tab.page.getByRole('button', { name: 'Change password' }).click();
    await tab.page.getByText('Password changed.').waitFor();
    await tab.page.getByText('verified', { exact: true }).waitFor();
    await assertAllLabelled(tab.page);
    await shoot(tab.page, 'account');
    assert.deepEqual(tab.errors, []);
    await tab.context.close();
  });
});
