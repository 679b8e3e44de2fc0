import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { claimLock, createVerifiedUser } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { assertAllLabelled, consoleLinkIn, ensureConsoleBuilt, launchChromium, openTab, shoot, signInAs } from './browser.js';

/**
 * The account pages against the real service and SMTP sink, nothing intercepted: a password reset
 * from the emailed link, then signing in with the new password; deleting the account, after which
 * signing in fails.
 */
ensureConsoleBuilt();

describe('the console: password reset and account deletion', () => {
  const t = useService({ withMail: true });
  let browser: Browser;

  before(async () => {
    browser = await launchChromium({ service: t.service });
  });
  after(async () => {
    await browser?.close();
  });

  it('resets the password from the emailed link; the new password signs in, the old one no longer', async () => {
    const user = await createVerifiedUser(t);
    const tab = await openTab(browser, [400, 401]);
    const { page } = tab;
    await page.goto(`${t.service.url}/console/signin`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('If an account has this email, a reset link is on its way.').waitFor();

    const mail = await t.sink.waitFor((m) => m.to.includes(user.email) && /\/console\/reset\?/.test(m.text));
    const link = consoleLinkIn(mail.text, 'reset');
    assert.match(link, new RegExp(`^/console/reset\\?userId=${user.userId}&token=[^&]+$`));
    await page.goto(`${t.service.url}${link}`);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await assertAllLabelled(page);
    await page.getByLabel('New password', { exact: true }).fill('a brand new password');
    await shoot(page, 'reset');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password is changed.').waitFor();

    // The link works once.
    await page.goto(`${t.service.url}${link}`);
    await page.getByLabel('New password', { exact: true }).fill('yet another password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('alert').getByText(/invalid, used or expired/).waitFor();

    await page.goto(`${t.service.url}/console/signin`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await signInAs(tab, t.service.url, user.email, 'a brand new password');
    assert.deepEqual(tab.errors, [], 'only the expected 400 and 401');
    await tab.context.close();
  });

  it('deletes the account through the account page: its locks go, and signing in fails afterwards', async () => {
    const user = await createVerifiedUser(t);
    const { lock } = await claimLock(t, user, { name: 'Garage' });
    const tab = await openTab(browser, [401]);
    const { page } = tab;
    await signInAs(tab, t.service.url, user.email, user.password);
    await page.getByRole('link', { name: 'Garage' }).waitFor();
    await page.getByRole('link', { name: 'Account' }).click();
    const remove = page.getByRole('button', { name: 'Delete my account' });
    assert.equal(await remove.isDisabled(), true, 'not before DELETE is typed');
    await page.getByLabel('Type DELETE to confirm').fill('DELETE');
    await remove.click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('Your account is deleted.').waitFor();
    assert.equal(await page.evaluate('localStorage.getItem("latchkey.console.session")'), null, 'the session is gone');

    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/signin');
    // Really gone: the service refuses the credentials and the old session, and the lock has no owner.
    assert.equal((await t.api.post('/auth/token', { body: { email: user.email, password: user.password } })).status, 401);
    assert.equal((await t.api.get('/account', { token: user.authToken })).status, 401);
    const owners = await t.service.ctx.db.kysely.selectFrom('lock_members').select('user_id').where('lock_id', '=', lock.id).execute();
    assert.deepEqual(owners, []);
    assert.deepEqual(tab.errors, [], 'only the expected 401');
    await tab.context.close();
  });
});
