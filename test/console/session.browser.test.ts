import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { createUser } from '../helpers/factories.js';
import { claimLock, createVerifiedUser } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { codeIn } from '../helpers/smtp.js';
import { connectTestLock } from '../helpers/test-lock.js';
import { eventually } from '../helpers/wait.js';
import { certifyBrowser, ensureConsoleBuilt, launchChromium, openTab, signInAs, useChromium } from './browser.js';

ensureConsoleBuilt();

const SESSION_KEY = 'latchkey.console.session';

/**
 * The console's session with auth tokens that live 60 s (the shortest the service allows): it
 * refreshes them before they expire, and when the session is ended elsewhere, the next 401 returns
 * to sign-in with the page kept.
 */
describe('the console session', () => {
  const t = useService({ env: { AUTH_TOKEN_TTL_SECONDS: '60' } });
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  it('refreshes the auth token before it expires, and a 401 leads to sign-in and back', async () => {
    const user = await createUser(t.api);
    const tab = await openTab(browser, [401]);
    const { page } = tab;
    // The page's clock runs 40 s ahead of the service's, so the token's refresh (due 15 s before
    // it expires by the page's clock) comes 5 s after sign-in instead of 45 s.
    await page.clock.install({ time: Date.now() + 40_000 });
    await page.goto(`${t.service.url}/console/signin?next=%2Faccount`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Account' }).waitFor();
    const first = await page.evaluate(`JSON.parse(localStorage.getItem('${SESSION_KEY}')).authToken`);

    // A quarter of its 60 s life before it ends, the token is exchanged without the user noticing.
    // (Polled from here: the console's CSP forbids the eval that waitForFunction would need.)
    let second = first;
    const refreshed = async () => {
      second = await page.evaluate(`JSON.parse(localStorage.getItem('${SESSION_KEY}') ?? '{}').authToken`);
      return second !== first;
    };
    await eventually(refreshed, 'the token refreshed', 15_000, 100).catch(() => undefined);
    assert.notEqual(second, first, 'the token was refreshed');
    const check = await t.api.get('/account', { token: String(second) });
    assert.equal(check.status, 200, 'the refreshed token works');

    // The session ends elsewhere (sign-out with its token): the next request answers 401, the
    // refresh fails too, and the console asks to sign in again, then returns to the page.
    assert.equal((await t.api.post('/auth/token/destroy', { token: String(second) })).status, 204);
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.match(page.url(), /\/console\/signin\?next=%2Factivity$/);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'My activity' }).waitFor();
    assert.deepEqual(tab.errors, []);
    await tab.context.close();
  });
});

/**
 * Sessions that hold (issue 29): a 401 that is not the session's end (a wrong certificate code, a
 * signed operation the service finds too old or too new) is shown where it happened and signs
 * nobody out; signed operations are dated by the service's clock (GET /time), so a phone whose
 * clock is minutes off still unlocks.
 */
describe('the console session holds', () => {
  const t = useService({ withMail: true });
  const chromium = useChromium(() => t.service);

  it('shows a wrong certificate code at the code, still signed in, and takes the right one', async () => {
    const user = await createVerifiedUser(t);
    const tab = await openTab(chromium.browser, [401, 423]);
    const { page } = tab;
    await signInAs(tab, t.service.url, user.email, user.password);
    await page.getByRole('button', { name: 'Certify this browser' }).click();
    await page.getByRole('button', { name: 'Email me a code' }).click();
    const mail = await t.sink.waitFor((m) => m.to.includes(user.email) && /\b\d{6}\b/.test(m.text));
    const code = codeIn(mail.text);
    await page.getByLabel('Code', { exact: true }).fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Check code' }).click();
    await page.getByRole('region', { name: "This browser's key" }).getByText('That code is not right').waitFor();
    assert.match(page.url(), /\/console\/$/, 'still on the page, not sent to sign-in');
    assert.notEqual(await page.evaluate(`localStorage.getItem('${SESSION_KEY}')`), null, 'the session is kept');
    await page.getByLabel('Code', { exact: true }).fill(code);
    await page.getByRole('button', { name: 'Check code' }).click();
    await page.getByText(/Certified until/).waitFor();
    assert.deepEqual(tab.errors, []);
    await tab.context.close();
  });

  for (const [label, offsetMs] of [['three minutes behind', -180_000], ['three minutes ahead of', 180_000]] as const) {
    it(`unlocks from a phone whose clock is ${label} the service's`, async () => {
      const user = await createVerifiedUser(t);
      const claimed = await claimLock(t, user, { name: 'Side door' });
      const device = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: claimed.id, secret: claimed.secret });
      try {
        const tab = await openTab(chromium.browser, [423]);
        const { page } = tab;
        await page.clock.install({ time: Date.now() + offsetMs });
        await signInAs(tab, t.service.url, user.email, user.password);
        await certifyBrowser(tab, t.service.url, t.sink, user.email);
        await page.getByRole('button', { name: 'Unlock Side door' }).click();
        await page.getByText('Side door confirmed: unlocked.').waitFor();
        assert.equal(device.commands.length, 1);
        assert.deepEqual(tab.errors, []);
        await tab.context.close();
      } finally {
        await device.close();
      }
    });
  }
});
