import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { SimulatedLock } from '../../src/simulator/simulated-lock.js';
import { claimLock, createSite, createVerifiedUser, shareLock, type ClaimedLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { certify, execute, signed, unlock } from '../execute/support.js';
import { PHONE, assertAllLabelled, assertNoSeriousAxeViolations, certifyBrowser, ensureConsoleBuilt, launchChromium, openTab, shoot, signInAs } from './browser.js';

/**
 * Issue 31 point 4: alarms and lockdown in the console, against the real service and simulated
 * locks (the device protocol's own simulator, which enforces a lockdown itself). A door held open
 * raises an alarm the lock list and the lock's page show live, and clears; a site is locked down
 * from one administrator's console and lifted by two, each signing in their own browser; a site is
 * locked down with a responder chosen among its doors' members, whose unlock alone still opens.
 */
ensureConsoleBuilt();

const lockItem = (page: Page, name: string) => page.locator('li.lock', { has: page.getByRole('link', { name }) });

describe('the console: alarms and lockdown', () => {
  const t = useService({ env: { CERT_CHECK: 'never', ALARM_SWEEP_MS: '500' } });
  let browser: Browser;
  const sims: SimulatedLock[] = [];

  before(async () => {
    browser = await launchChromium({ service: t.service });
  });
  after(async () => {
    for (const sim of sims) await sim.close().catch(() => undefined);
    await browser?.close();
  });

  async function simulate(claimed: ClaimedLock): Promise<SimulatedLock> {
    const sim = new SimulatedLock({
      id: claimed.id, secret: claimed.secret, mqttUrl: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, replyDelayMs: 0,
      trustedRoot: t.service.ctx.pki.rootCertificate, now: () => Date.now() / 1000, log: () => undefined,
    });
    sims.push(sim);
    await sim.connect();
    await eventually(() => sim.configVersion !== null, 'the lock holds its config');
    return sim;
  }

  it('shows a door held open on the list and the lock page as it happens, and in the history once it clears', async () => {
    const owner = await createVerifiedUser(t);
    const site = await createSite(t, { name: 'Depot' });
    const claimed = await claimLock(t, owner, { name: 'Loading bay', siteId: site.id });
    const sim = await simulate(claimed);
    const tab = await openTab(browser);
    const { page } = tab;
    await signInAs(tab, t.service.url, owner.email, owner.password);

    // The lock's alarm settings: held open after 5 s, no email for forced doors.
    await page.goto(`${t.service.url}/console/locks/${claimed.id}/alarms`);
    await page.getByRole('heading', { name: 'Alarms of Loading bay' }).waitFor();
    await page.getByLabel('Door held open after (seconds)').fill('5');
    await page.getByLabel('Door forced open', { exact: true }).uncheck();
    await page.getByRole('button', { name: 'Save alarm settings' }).click();
    await page.getByText('Alarm settings saved.').waitFor();
    const settings = (await t.api.get(`/device/${claimed.id}/alarm-settings`, { token: owner.authToken })).body;
    assert.equal(settings.heldOpenSeconds, 5);
    assert.equal(settings.mail.forced_open, false);
    assert.equal(settings.mail.held_open, true);
    await assertAllLabelled(page);
    await assertNoSeriousAxeViolations(page);

    // Unlocked by hand, the door opened and left open: the lock page's banner says so, live.
    await page.getByRole('link', { name: '← Loading bay' }).click();
    sim.operate('manual', false);
    sim.door(true);
    const banner = page.locator('.alarm-banner');
    await banner.locator('[data-alarm="held_open"]').getByText('held open').waitFor({ timeout: 30_000 });
    await page.setViewportSize(PHONE);
    await shoot(page, 'alarm-banner');
    await assertNoSeriousAxeViolations(page);
    await page.getByRole('link', { name: '← Locks' }).click();
    const card = lockItem(page, 'Loading bay');
    await card.locator('[data-alarm="held_open"]').waitFor();
    await shoot(page, 'alarm-list');

    // Closed: the badge goes, live, and the history has it.
    sim.door(false);
    await card.locator('[data-alarm="held_open"]').waitFor({ state: 'detached', timeout: 30_000 });
    await page.getByRole('link', { name: 'Alarms', exact: true }).click();
    const depot = page.getByRole('region', { name: 'Depot' });
    await depot.getByRole('table', { name: 'History' }).locator('tr[data-alarm="held_open"]').waitFor();
    await depot.getByText('Open alarms: none.').waitFor();
    await assertAllLabelled(page);
    await assertNoSeriousAxeViolations(page);
    assert.deepEqual(tab.errors, []);
    await tab.context.close();
  });

  it('locks a site down from one console and lifts it with the signatures of two administrators, each from their own', async () => {
    const alice = await createVerifiedUser(t, { displayName: 'Alice Admin' });
    const bob = await createVerifiedUser(t, { displayName: 'Bob Admin' });
    const site = await createSite(t, { name: 'Campus' });
    const gate = await claimLock(t, alice, { name: 'Main gate', siteId: site.id });
    const lab = await claimLock(t, alice, { name: 'Lab door', siteId: site.id });
    for (const lock of [gate, lab]) await shareLock(t, lock.id, alice, bob.userId, { role: 'ADMIN' });
    const [gateSim, labSim] = [await simulate(gate), await simulate(lab)];

    const a = await openTab(browser, [403]);
    await signInAs(a, t.service.url, alice.email, alice.password);
    await certifyBrowser(a, t.service.url, null, alice.email);
    await a.page.getByRole('link', { name: 'Alarms', exact: true }).click();
    const campus = a.page.getByRole('region', { name: 'Campus' });
    await campus.getByRole('button', { name: 'Lock down Campus' }).click();
    await campus.getByLabel('Administrators needed to lift it').fill('2');
    await assertAllLabelled(a.page);
    await shoot(a.page, 'lockdown-confirm', campus);
    await campus.getByRole('button', { name: 'Yes, lock down 2 doors' }).click();
    await campus.getByText('Campus is locked down: 2 doors refuse every unlock.').waitFor();
    await eventually(() => gateSim.lockdownId !== null && labSim.lockdownId !== null, 'both locks hold the lockdown');
    const card = campus.locator('article.lockdown');
    await card.getByText('Lift signed by 0 of 2.').waitFor();
    await card.getByText('the lock confirms it is locked down').first().waitFor();
    assert.equal(await card.getByText('the lock confirms it is locked down').count(), 2);
    // Refused at the service, and at the lock itself when the service is bypassed.
    const signer = await certify(t, alice);
    assert.equal((await execute(t, signer, gate.id, signed(signer, gate.id, unlock))).status, 403);
    await assert.rejects(t.service.ctx.link.sendCommand(gate.id, signed(signer, gate.id, unlock), { type: 'MUTATE_LOCK', locked: false }), /locked_down/);

    // Alice's own lift: one of two; the doors stay locked down.
    await card.getByRole('button', { name: 'Sign the lift (1 of 2)' }).click();
    await card.getByText('You signed the lift; 1 administrator more must sign from their own console.').waitFor();
    await card.getByText('Lift signed by 1 of 2: you.').waitFor();
    await assertNoSeriousAxeViolations(a.page);
    await shoot(a.page, 'lockdown-lift', card);
    await lockItemOnList(a.page, 'Main gate');
    assert.ok(gateSim.lockdownId !== null && labSim.lockdownId !== null);

    // Bob, in his own browser, signs the second: lifted at the service and at both locks; Alice's page follows live.
    const b = await openTab(browser);
    await signInAs(b, t.service.url, bob.email, bob.password);
    await certifyBrowser(b, t.service.url, null, bob.email);
    await b.page.getByRole('link', { name: 'Alarms', exact: true }).click();
    const bobCard = b.page.getByRole('region', { name: 'Campus' }).locator('article.lockdown');
    await bobCard.getByText('Lift signed by 1 of 2: Alice Admin.').waitFor();
    await bobCard.getByRole('button', { name: 'Sign the lift (2 of 2)' }).click();
    await eventually(() => gateSim.lockdownId === null && labSim.lockdownId === null, 'both locks lifted it');
    await bobCard.waitFor({ state: 'detached', timeout: 30_000 });
    await a.page.getByRole('link', { name: 'Alarms', exact: true }).click();
    await campus.getByRole('button', { name: 'Lock down Campus' }).waitFor();
    await campus.locator('article.lockdown').waitFor({ state: 'detached', timeout: 30_000 });
    assert.equal((await execute(t, signer, gate.id, signed(signer, gate.id, unlock))).status, 200);
    assert.deepEqual(a.errors, []);
    assert.deepEqual(b.errors, []);
    await a.context.close();
    await b.context.close();
  });

  it("locks a site down with a responder chosen among its doors' members: only the responder's unlock opens, at the service and at the lock", async () => {
    const alice = await createVerifiedUser(t, { displayName: 'Alice Admin' });
    const carol = await createVerifiedUser(t, { displayName: 'Carol Responder' });
    const dave = await createVerifiedUser(t, { displayName: 'Dave Member' });
    const site = await createSite(t, { name: 'Annex' });
    const front = await claimLock(t, alice, { name: 'Front door', siteId: site.id });
    const store = await claimLock(t, alice, { name: 'Store room', siteId: site.id });
    await shareLock(t, front.id, alice, carol.userId);
    for (const lock of [front, store]) await shareLock(t, lock.id, alice, dave.userId);
    const [frontSim, storeSim] = [await simulate(front), await simulate(store)];

    const a = await openTab(browser);
    await signInAs(a, t.service.url, alice.email, alice.password);
    await certifyBrowser(a, t.service.url, null, alice.email);
    await a.page.getByRole('link', { name: 'Alarms', exact: true }).click();
    const annex = a.page.getByRole('region', { name: 'Annex' });
    await annex.getByRole('button', { name: 'Lock down Annex' }).click();
    // The doors' members, each once: Carol is on one of the two doors, Dave and Alice on both.
    const responders = annex.getByRole('group', { name: 'Responders who may still unlock (optional)' });
    const carolBox = responders.getByRole('checkbox', { name: `Carol Responder (${carol.email}), on 1 of 2 doors` });
    await carolBox.waitFor();
    await responders.getByRole('checkbox', { name: `Dave Member (${dave.email})`, exact: true }).waitFor();
    await responders.getByRole('checkbox', { name: `Alice Admin (${alice.email}) (you)`, exact: true }).waitFor();
    assert.equal(await responders.getByRole('checkbox').count(), 3);
    await responders.getByText('No responder: no one may unlock until the lift.').waitFor();
    // Chosen from the keyboard.
    await carolBox.focus();
    await a.page.keyboard.press('Space');
    assert.equal(await carolBox.isChecked(), true);
    await responders.getByText('1 responder chosen: only their unlocks open the doors they may use.').waitFor();
    await annex.getByText('2 doors will lock and refuse every unlock but those of 1 responder').waitFor();
    await assertAllLabelled(a.page);
    await assertNoSeriousAxeViolations(a.page);
    await shoot(a.page, 'lockdown-responders', annex);
    await annex.getByRole('button', { name: 'Yes, lock down 2 doors' }).click();
    await annex.getByText('Annex is locked down: 2 doors refuse every unlock but those of 1 responder.').waitFor();
    await eventually(() => frontSim.lockdownId !== null && storeSim.lockdownId !== null, 'both locks hold the lockdown');
    const card = annex.locator('article.lockdown');
    await card.getByText('Responders who may still unlock: Carol Responder.').waitFor();
    const declared = (await t.api.get('/lockdowns', { token: alice.authToken })).body;
    assert.deepEqual(declared.lockdowns.map((l: { responders: Array<{ userId: string }> }) => l.responders.map((r) => r.userId)), [[carol.userId]]);

    // Carol's unlock opens the front door, through the service; Dave's is refused there.
    const [carolSigner, daveSigner] = [await certify(t, carol), await certify(t, dave)];
    assert.equal((await execute(t, carolSigner, front.id, signed(carolSigner, front.id, unlock))).status, 200);
    await eventually(() => frontSim.state.locked === false, 'the front door unlocked for its responder');
    assert.equal((await execute(t, daveSigner, front.id, signed(daveSigner, front.id, unlock))).status, 403);
    // The lock itself, the service bypassed: the responder's signature opens, another member's is refused.
    await assert.rejects(t.service.ctx.link.sendCommand(front.id, signed(daveSigner, front.id, unlock), { type: 'MUTATE_LOCK', locked: false }), /locked_down/);
    await assert.rejects(t.service.ctx.link.sendCommand(store.id, signed(daveSigner, store.id, unlock), { type: 'MUTATE_LOCK', locked: false }), /locked_down/);
    await t.service.ctx.link.sendCommand(front.id, signed(carolSigner, front.id, unlock), { type: 'MUTATE_LOCK', locked: false });
    assert.deepEqual(a.errors, []);
    await a.context.close();
  });
});

/** The list of locks shows the lockdown on the lock's card (what the lock says), then back to the alarms page. */
async function lockItemOnList(page: Page, name: string): Promise<void> {
  await page.getByRole('link', { name: 'Locks', exact: true }).click();
  await lockItem(page, name).locator('[data-state="lockdown"]').waitFor();
  await page.getByRole('link', { name: 'Alarms', exact: true }).click();
}
