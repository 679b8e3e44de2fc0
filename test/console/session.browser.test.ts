import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { createUser } from '../helpers/factories.js';
import { useService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { ensureConsoleBuilt, launchChromium, openTab } from './browser.js';

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
