import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { applicationBody } from '../applications/helpers.js';
import { claimLock, createVerifiedUser, shareLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { assertAllLabelled, assertNoSeriousAxeViolations, ensureConsoleBuilt, openTab, signInAs, useChromium } from './browser.js';

/**
 * Every page of the console under axe-core (WCAG 2 A/AA and best practices): no serious or
 * critical finding, for an administrator, a USER and a visitor. Also what axe does not check by
 * itself: the skip link, the current page marked in the navigation, day names read in full, time
 * fields in 24-hour form, and a USER shown no administrator tabs and no error.
 */
ensureConsoleBuilt();

describe('the console is accessible on every page', () => {
  const t = useService({ withMail: true, env: { CERT_CHECK: 'never' } });
  const chromium = useChromium(() => t.service);

  /** Opens `path`, waits for `ready`, then checks the page. */
  async function check(page: Page, path: string, ready: string | RegExp): Promise<void> {
    await page.goto(`${t.service.url}/console${path}`);
    await page.getByRole('heading', { name: ready }).first().waitFor();
    await page.locator('[role="status"]', { hasText: /^Loading/ }).waitFor({ state: 'detached' });
    await assertNoSeriousAxeViolations(page);
    await assertAllLabelled(page);
  }

  it('has no serious or critical axe finding on any page, signed out, as an administrator and as a USER', async () => {
    const admin = await createVerifiedUser(t);
    const staff = await createVerifiedUser(t);
    const { lock } = await claimLock(t, admin, { name: 'Lobby' });
    await shareLock(t, lock.id, admin, staff.userId, { role: 'USER' });
    const app = await t.api.post('/platform/application', { token: admin.authToken, body: applicationBody() });
    assert.equal(app.status, 201);

    const visitor = await openTab(chromium.browser, [400, 404]);
    await check(visitor.page, '/signin', 'Sign in');
    await check(visitor.page, '/register', 'Create an account');
    await check(visitor.page, '/reset', 'Reset your password');
    await check(visitor.page, '/verify?code=not-a-code', 'Email verification');

    const a = await openTab(chromium.browser);
    await signInAs(a, t.service.url, admin.email, admin.password);
    const skip = a.page.getByRole('link', { name: 'Skip to content' });
    assert.equal(await skip.getAttribute('href'), '#content');
    assert.equal(await a.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Locks' }).getAttribute('aria-current'), 'page');
    await check(a.page, '/', 'Locks');
    await check(a.page, `/locks/${lock.id}`, 'Lobby');
    assert.equal(await a.page.getByRole('link', { name: 'Overview' }).getAttribute('aria-current'), 'page');
    await check(a.page, `/locks/${lock.id}/members`, 'Lobby');
    await check(a.page, `/locks/${lock.id}/settings`, 'Lobby');
    assert.equal(await a.page.getByRole('link', { name: 'Settings' }).getAttribute('aria-current'), 'page');
    await a.page.getByLabel('Only at certain times').check();
    await a.page.getByLabel('Stay unlocked during a weekly window').check();
    for (const day of ['Monday', 'Wednesday', 'Sunday']) await a.page.getByRole('group', { name: 'Allowed days' }).getByLabel(day, { exact: true }).waitFor();
    const from = a.page.getByLabel('Allowed from');
    assert.equal(await from.getAttribute('type'), null, 'typed as text: 24-hour whatever the locale');
    assert.equal(await from.inputValue(), '07:00');
    await assertNoSeriousAxeViolations(a.page);
    await check(a.page, `/locks/${lock.id}/audit`, 'Lobby');
    await check(a.page, '/share', 'Share doors');
    await a.page.getByLabel('Lobby', { exact: true }).check();
    await a.page.getByLabel('Only at certain hours each week').check();
    await a.page.getByRole('group', { name: 'Days' }).getByLabel('Friday', { exact: true }).waitFor();
    await assertNoSeriousAxeViolations(a.page);
    await check(a.page, '/doors', 'Activity across your doors');
    await a.page.getByRole('region', { name: 'Offline now' }).getByText(/Lobby — never seen online/).waitFor();
    await check(a.page, '/activity', 'My activity');
    await check(a.page, `/users/${staff.userId}/activity?name=staff`, 'Activity of staff');
    await check(a.page, '/account', 'Account');
    await check(a.page, '/apps', /Applications|Developers/);
    await check(a.page, `/apps/${app.body.applicationId}`, app.body.name);
    await check(a.page, '/no-such-page', 'Not found');

    const u = await openTab(chromium.browser);
    await signInAs(u, t.service.url, staff.email, staff.password);
    await check(u.page, '/', 'Locks');
    await check(u.page, `/locks/${lock.id}`, 'Lobby');
    assert.equal(await u.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Share' }).count(), 0, 'no administrators\' pages for a USER');
    const tabs = await u.page.getByRole('navigation', { name: 'Lock sections' }).getByRole('link').allTextContents();
    assert.deepEqual(tabs, ['Overview', 'Your access'], 'a USER sees no administrator tabs');
    await check(u.page, `/locks/${lock.id}/members`, 'Lobby');
    await check(u.page, `/locks/${lock.id}/settings`, 'Lobby');
    assert.equal(await u.page.locator('.error').count(), 0, 'a USER opening an admin link sees no error');
    assert.deepEqual([...visitor.errors, ...a.errors, ...u.errors], []);
    for (const tab of [visitor, a, u]) await tab.context.close();
  });
});
