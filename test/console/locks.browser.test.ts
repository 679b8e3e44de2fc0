import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createUser } from '../helpers/factories.js';
import { claimLock, createVerifiedUser, shareLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { PASSWORD, PHONE, assertAllLabelled, certifyBrowser, consoleLinkIn, ensureConsoleBuilt, launchChromium, openTab, shoot, signInAs } from './browser.js';

/**
 * A lock's own pages against the real service: hiding a lock and showing it again, linking and
 * unlinking tiles, members whose share is held (email not verified) or who are only invited,
 * and a member (not the owner) leaving a lock with an operation signed in their browser.
 * CERT_CHECK=never: certifying the browser needs no emailed code here (console.browser.test.ts
 * covers that check).
 */
ensureConsoleBuilt();

const lockItem = (page: Page, name: string) => page.locator('li.lock', { has: page.getByRole('link', { name }) });

describe('the console: hiding, tiles, held members, leaving', () => {
  const t = useService({ withMail: true, env: { CERT_CHECK: 'never' } });
  let browser: Browser;

  before(async () => {
    browser = await launchChromium({ service: t.service });
  });
  after(async () => {
    await browser?.close();
  });

  it('hides a lock from the list and shows it again', async () => {
    const owner = await createVerifiedUser(t);
    await claimLock(t, owner, { name: 'Back gate' });
    await claimLock(t, owner, { name: 'Side door' });
    const tab = await openTab(browser);
    const { page } = tab;
    await signInAs(tab, t.service.url, owner.email, owner.password);
    await page.getByRole('link', { name: 'Back gate' }).click();
    await page.getByLabel('Hide from my list').check();
    await page.getByText('Hidden from your list.').waitFor();
    await page.getByRole('link', { name: '← Locks' }).click();
    await lockItem(page, 'Side door').waitFor();
    assert.equal(await lockItem(page, 'Back gate').count(), 0, 'hidden from the list');
    const hidden = (await t.api.get('/device', { token: owner.authToken })).body.find((l: { name: string }) => l.name === 'Back gate');
    assert.equal(hidden.settings.hidden, true, 'the service keeps it hidden');

    await page.getByLabel('Show 1 hidden lock').check();
    await lockItem(page, 'Back gate').getByRole('link', { name: 'Back gate' }).click();
    await page.getByLabel('Hide from my list').uncheck();
    await page.getByText('Shown in your list.').waitFor();
    await page.getByRole('link', { name: '← Locks' }).click();
    await lockItem(page, 'Back gate').waitFor();
    assert.equal(await page.getByLabel(/hidden lock/).count(), 0);
    const shown = (await t.api.get('/device', { token: owner.authToken })).body.find((l: { name: string }) => l.name === 'Back gate');
    assert.equal(shown.settings.hidden, false);
    assert.deepEqual(tab.errors, []);
    await tab.context.close();
  });

  it('links tiles to a lock and unlinks them', async () => {
    const owner = await createVerifiedUser(t);
    const { lock } = await claimLock(t, owner, { name: 'Lobby' });
    const [tileA, tileB] = [randomUUID(), randomUUID()];
    const tab = await openTab(browser);
    const { page } = tab;
    await signInAs(tab, t.service.url, owner.email, owner.password);
    await page.goto(`${t.service.url}/console/locks/${lock.id}/settings`);
    await page.getByText('No tile opens this lock.').waitFor();
    for (const tile of [tileA, tileB]) {
      await page.getByLabel('Tile id').fill(tile);
      await page.getByRole('button', { name: 'Link tile', exact: true }).click();
      await page.getByText(`Tile ${tile} linked.`).waitFor();
      await page.getByRole('list', { name: 'Linked tiles' }).getByText(tile).waitFor();
    }
    await assertAllLabelled(page);
    await shoot(page, 'tiles', page.getByRole('region', { name: 'Tiles' }));
    const tiles = async () => (await t.api.get(`/device/${lock.id}`, { token: owner.authToken })).body.settings.tiles.sort();
    assert.deepEqual(await tiles(), [tileA, tileB].sort());
    const resolved = await t.api.get(`/tile/${tileA}`, { token: owner.authToken, version: 3 });
    assert.deepEqual(resolved.body.deviceIds, [lock.id]);

    await page.getByRole('button', { name: `Unlink tile ${tileA}` }).click();
    await page.getByText(`Tile ${tileA} unlinked.`).waitFor();
    await page.getByRole('button', { name: `Unlink tile ${tileA}` }).waitFor({ state: 'detached' });
    assert.deepEqual(await tiles(), [tileB]);
    assert.deepEqual(tab.errors, []);
    await tab.context.close();
  });

  it('shows held and invited members clearly, and a member (not the owner) leaves the lock', async () => {
    const owner = await createVerifiedUser(t);
    const member = await createVerifiedUser(t);
    const unverified = await createUser(t.api);
    const { lock } = await claimLock(t, owner, { name: 'Studio' });
    await shareLock(t, lock.id, owner, member.userId, { role: 'USER' });
    await shareLock(t, lock.id, owner, unverified.userId, { role: 'USER', unverified: true });

    const a = await openTab(browser);
    await signInAs(a, t.service.url, owner.email, owner.password);
    await certifyBrowser(a, t.service.url, null, owner.email);
    await a.page.goto(`${t.service.url}/console/locks/${lock.id}/members`);
    // A share to an account whose email is not verified is held: no access until they verify it.
    const held = a.page.locator(`li.member[data-user="${unverified.email}"]`);
    await held.getByText('waiting for email verification').waitFor();
    await held.getByText(/No access yet/).waitFor();
    assert.equal(await held.getAttribute('data-pending'), 'true');
    // Sharing with an address nobody registered invites it.
    const invited = `invited-${process.pid}@example.com`;
    await a.page.getByLabel('Email of the person to share with').fill(invited);
    await a.page.getByRole('button', { name: 'Share', exact: true }).click();
    await a.page.getByText(`Shared with ${invited}.`).waitFor();
    const invitedRow = a.page.locator(`li.member[data-user="${invited}"]`);
    await invitedRow.locator('.badge', { hasText: 'invited' }).waitFor();
    await invitedRow.getByText(/no account yet/).waitFor();
    await t.sink.waitFor((m) => m.to.includes(invited));
    const active = a.page.locator(`li.member[data-user="${member.email}"]`);
    assert.equal(await active.locator('.badge').count(), 0, 'an active member has no status badge');
    assert.equal(await active.getAttribute('data-pending'), null);
    await assertAllLabelled(a.page);
    await shoot(a.page, 'members-held');

    // The member leaves, signing REMOVE_USER in their own browser.
    const b = await openTab(browser);
    await signInAs(b, t.service.url, member.email, member.password);
    await certifyBrowser(b, t.service.url, null, member.email);
    await lockItem(b.page, 'Studio').getByRole('link', { name: 'Studio' }).click();
    await b.page.getByRole('link', { name: 'Your access' }).click();
    await b.page.getByText("Only the lock's admins see its members.").waitFor();
    await assertAllLabelled(b.page);
    await b.page.getByRole('button', { name: 'Leave this lock' }).click();
    await b.page.getByText('You will no longer be able to open this door').waitFor();
    await b.page.getByRole('button', { name: 'Yes, leave this lock' }).click();
    await b.page.getByRole('heading', { name: 'Locks' }).waitFor();
    await b.page.getByText('You have no locks yet').waitFor();
    assert.deepEqual((await t.api.get('/device', { token: member.authToken })).body, []);
    // The owner's members list drops them live.
    await active.waitFor({ state: 'detached' });
    const users = (await t.api.get(`/device/${lock.id}/users`, { token: owner.authToken })).body as Array<{ userId: string }>;
    assert.ok(!users.some((u) => u.userId === member.userId));
    assert.deepEqual(a.errors, []);
    assert.deepEqual(b.errors, []);
    await a.context.close();
    await b.context.close();
  });
  it('an invited address registers from the emailed link on a phone, sees its share waiting, and gets the door once verified', async () => {
    const owner = await createVerifiedUser(t);
    const { lock } = await claimLock(t, owner, { name: 'Back office' });
    const a = await openTab(browser);
    await signInAs(a, t.service.url, owner.email, owner.password);
    await certifyBrowser(a, t.service.url, null, owner.email);
    await a.page.goto(`${t.service.url}/console/locks/${lock.id}/members`);
    const staff = `staff-${randomUUID()}@example.com`;
    await a.page.getByLabel('Email of the person to share with').fill(staff);
    await a.page.getByRole('button', { name: 'Share', exact: true }).click();
    await a.page.getByText(`Shared with ${staff}.`).waitFor();

    const invitation = await t.sink.waitFor((m) => m.to.includes(staff));
    assert.match(invitation.text, /the door "Back office"/);
    assert.ok(invitation.text.includes(owner.email), 'names the inviter by their verified address');
    const b = await openTab(browser);
    await b.page.setViewportSize(PHONE);
    await b.page.goto(`${t.service.url}${consoleLinkIn(invitation.text, 'register')}`);
    assert.equal(await b.page.getByLabel('Email').inputValue(), staff, 'the address is filled in');
    await b.page.getByLabel('Password').fill(PASSWORD);
    await b.page.getByRole('button', { name: 'Create account' }).click();
    await b.page.getByText('A share is waiting for your email to be verified').waitFor();
    await shoot(b.page, 'invited-waiting');
    const verification = await t.sink.waitFor((m) => m.to.includes(staff) && /verify\?code=/.test(m.text));
    await b.page.goto(`${t.service.url}${consoleLinkIn(verification.text, 'verify')}`);
    await b.page.getByText('Your email address is verified.').waitFor();
    await b.page.getByRole('link', { name: 'Go to your locks' }).click();
    await lockItem(b.page, 'Back office').waitFor();
    assert.deepEqual(a.errors, []);
    assert.deepEqual(b.errors, []);
    await a.context.close();
    await b.context.close();
  });
});
