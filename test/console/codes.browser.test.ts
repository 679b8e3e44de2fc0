import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { runSimulator, type RunningSimulator } from '../../src/simulator/run-simulator.js';
import { claimLock, createVerifiedUser, shareLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { assertAllLabelled, assertNoSeriousAxeViolations, certifyBrowser, ensureConsoleBuilt, openTab, shoot, signInAs, useChromium } from './browser.js';

/**
 * Issue 30 point 5 in Chromium: an administrator gives a guest a generated keypad code (shown
 * once, sent to the guest's verified address), sees the lock take it, sees the guest's use at the
 * keypad of a running simulator, and revokes it; a USER of the lock sees no codes and the API
 * tells them nothing.
 */
ensureConsoleBuilt();

describe('the console: keypad codes', () => {
  const t = useService({ withMail: true, env: { CERT_CHECK: 'never' } });
  const chromium = useChromium(() => t.service);
  const simulators: RunningSimulator[] = [];
  after(async () => {
    for (const simulator of simulators) await simulator.close();
  });

  it('creates a generated code shown once → sends it to the holder → the lock applies it → a keypad use shows → revoked; a USER sees none', async () => {
    const base = t.service.url;
    const admin = await createVerifiedUser(t);
    const user = await createVerifiedUser(t);
    const guest = await createVerifiedUser(t);
    const lock = await claimLock(t, admin, { name: 'Front door' });
    await shareLock(t, lock.id, admin, user.userId);
    const simulator = await runSimulator({ id: lock.id, secret: lock.secret, mqttUrl: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, trustedRoot: t.service.ctx.pki.rootCertificate, stdin: new PassThrough(), stdout: new PassThrough() });
    simulators.push(simulator);

    const a = await openTab(chromium.browser);
    await signInAs(a, base, admin.email, admin.password);
    await certifyBrowser(a, base, null, admin.email);
    const { page } = a;
    await page.goto(`${base}/console/locks/${lock.id}`);
    await page.getByRole('navigation', { name: 'Lock sections' }).getByRole('link', { name: 'Keypad codes' }).click();
    await page.getByRole('heading', { name: 'Keypad codes of Front door' }).waitFor();
    await page.getByText('No code yet.').waitFor();
    await assertNoSeriousAxeViolations(page);
    await assertAllLabelled(page);

    await page.getByLabel("Guest's name").fill('Courier');
    await page.getByLabel('Only at certain hours each week').check();
    await page.getByRole('group', { name: 'Days' }).getByLabel('Saturday', { exact: true }).check();
    await page.getByLabel('From', { exact: true }).fill('00:00');
    await page.getByLabel('Until', { exact: true }).fill('23:59');
    for (const day of ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Sunday']) await page.getByRole('group', { name: 'Days' }).getByLabel(day, { exact: true }).check();
    await page.getByLabel('Time zone of these hours').fill('UTC');
    await page.getByRole('button', { name: 'Create code' }).click();
    const created = page.getByRole('region', { name: 'Code created' });
    await created.getByText('shown this once').waitFor();
    const digits = (await created.getByTestId('new-code').textContent())!.trim();
    assert.match(digits, /^[0-9]{6}$/);
    await assertNoSeriousAxeViolations(page);
    await shoot(page, 'codes-created');

    await created.getByLabel("Guest's email").fill(guest.email);
    await created.getByRole('button', { name: 'Send to the holder' }).click();
    await created.getByText(`Sent to ${guest.email} if a Latchkey account verified that address`).waitFor();
    const mail = await t.sink.waitFor((m) => m.to.includes(guest.email) && m.subject === 'Your door code');
    assert.match(mail.text, new RegExp(`is ${digits}\\.`));
    assert.match(mail.text, /"Front door"/);
    await created.getByRole('button', { name: 'Done' }).click();
    await created.waitFor({ state: 'detached' });
    assert.ok(!(await page.content()).includes(digits), 'the digits are gone once done');

    const item = page.locator('li.code', { hasText: 'Courier' });
    await item.locator(`[data-lock="${lock.id}"] [data-sync="applied"]`).waitFor({ timeout: 30_000 });
    await item.getByText(/Hours: Monday to Sunday, 00:00–23:59 \(UTC\)/).waitFor();
    assert.equal((await simulator.lock.enterCode(digits)).ok, true);
    await item.getByText(/Used 1 time here, last/).waitFor({ timeout: 30_000 });
    await shoot(page, 'codes-list', item);

    await item.getByRole('button', { name: "Revoke Courier's code" }).click();
    await item.getByRole('button', { name: 'Yes, revoke it' }).click();
    await item.locator(`[data-lock="${lock.id}"] [data-status="revoked"]`).waitFor();
    await item.locator(`[data-lock="${lock.id}"] [data-sync="applied"]`).waitFor({ timeout: 30_000 });
    assert.deepEqual(await simulator.lock.enterCode(digits), { ok: false, reason: 'unknown_code' });
    assert.ok(!(await page.content()).includes(digits), 'the list never shows the digits');
    await assertNoSeriousAxeViolations(page);

    // A set of doors: the picker, the form and the list together.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Codes' }).click();
    await page.getByRole('heading', { name: 'Keypad codes', exact: true }).waitFor();
    await page.getByLabel('Front door', { exact: true }).check();
    await page.locator('li.code', { hasText: 'Courier' }).waitFor();
    await assertNoSeriousAxeViolations(page);
    await assertAllLabelled(page);
    assert.deepEqual(a.errors, []);

    // A USER of the lock: no link, no page, nothing from the API.
    const u = await openTab(chromium.browser, [403, 404]);
    await signInAs(u, base, user.email, user.password);
    assert.equal(await u.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Codes' }).count(), 0);
    await u.page.goto(`${base}/console/locks/${lock.id}`);
    await u.page.getByRole('heading', { name: 'Front door' }).waitFor();
    assert.equal(await u.page.getByRole('link', { name: 'Keypad codes' }).count(), 0);
    await u.page.goto(`${base}/console/locks/${lock.id}/codes`);
    await u.page.getByText("Only the lock's administrators see its codes.").waitFor();
    await assertNoSeriousAxeViolations(u.page);
    assert.equal((await t.api.get(`/lock-codes?lockId=${lock.id}`, { token: user.authToken })).status, 403);
    const codeId = await item.getAttribute('data-code');
    assert.equal((await t.api.get(`/lock-codes/${codeId}`, { token: user.authToken })).status, 404);
    assert.deepEqual(u.errors, []);
  });
});
