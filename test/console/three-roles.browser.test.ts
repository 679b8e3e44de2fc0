import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createTestClock } from '../helpers/clock.js';
import { claimLock, createVerifiedUser } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { PASSWORD, PHONE, assertNoSeriousAxeViolations, certifyBrowser, consoleLinkIn, ensureConsoleBuilt, openTab, shoot, signInAs, useChromium } from './browser.js';

/** Monday 30 November 2026, 10:00 in London (UTC in winter). */
const MONDAY_10 = 1_796_032_800;

/**
 * Issue 29's "done when", played in Chromium against the real service: a building manager
 * (desktop) makes a site of three doors and gives a staff member weekday hours on two of them;
 * the staff member, invited by email, registers on a phone, verifies, sees his hours, unlocks
 * inside them and is refused outside them; the manager watches it in the feed across doors, and,
 * as the last administrator of a door others use, is told before leaving and refused. The service
 * runs on a test clock; the console signs by the service's clock (GET /time), so moving it is all
 * it takes to be inside or outside the hours.
 */
ensureConsoleBuilt();

describe('the console in three roles: a manager, a staff member invited by email, hours kept', () => {
  const clock = createTestClock(MONDAY_10);
  const t = useService({ withMail: true, clock });
  const chromium = useChromium(() => t.service);
  const devices: TestLock[] = [];
  after(async () => {
    for (const device of devices) await device.close();
  });

  it('site of three doors → weekday hours on two for an invited staff member → his phone unlocks inside them, is refused outside → the feed shows it', async () => {
    const base = t.service.url;
    const manager = await createVerifiedUser(t);
    const doors = [await claimLock(t, manager, { name: 'Main entrance' }), await claimLock(t, manager, { name: 'Staff room' }), await claimLock(t, manager, { name: 'Server room' })];
    for (const door of doors.slice(0, 2)) {
      devices.push(await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: door.id, secret: door.secret }));
    }

    // The manager, at a desk: a site of three doors.
    const m = await openTab(chromium.browser, [409, 423]);
    await signInAs(m, base, manager.email, manager.password);
    await certifyBrowser(m, base, t.sink, manager.email);
    await m.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).click();
    await m.page.getByLabel('New site name').fill('Riverside');
    await m.page.getByRole('button', { name: 'Make site' }).click();
    const site = m.page.getByRole('region', { name: 'Riverside' });
    for (const name of ['Main entrance', 'Staff room', 'Server room']) {
      await site.getByLabel(name, { exact: true }).check();
      await site.getByText(`${name} is in Riverside.`).waitFor();
    }
    await shoot(m.page, 'sites');

    // Weekday hours on two of them, for someone without an account yet.
    const staff = `staff-${randomUUID()}@example.com`;
    await m.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Share' }).click();
    await m.page.getByLabel('All of Riverside').waitFor();
    await m.page.getByLabel('Main entrance', { exact: true }).check();
    await m.page.getByLabel('Staff room', { exact: true }).check();
    await m.page.getByText('2 doors chosen.').waitFor();
    await m.page.getByLabel('Email of the person to share with').fill(staff);
    await m.page.getByLabel('Only at certain hours each week').check();
    await m.page.getByLabel('From', { exact: true }).fill('08:00');
    await m.page.getByLabel('Until', { exact: true }).fill('18:00');
    await m.page.getByLabel('Time zone of these hours').fill('Europe/London');
    await assertNoSeriousAxeViolations(m.page);
    await shoot(m.page, 'share-doors');
    await m.page.getByRole('button', { name: 'Share', exact: true }).click();
    await m.page.getByText(`Shared with ${staff} on 2 doors.`).waitFor();
    assert.equal(await m.page.getByLabel('Only at certain hours each week').isChecked(), false, 'the form starts clean for the next person');

    // The staff member, on his phone: the invitation names a door and the manager, and links to registration.
    const invitation = await t.sink.waitFor((mail) => mail.to.includes(staff));
    assert.ok(invitation.text.includes(manager.email));
    assert.match(invitation.text, /the door "(Main entrance|Staff room)"/);
    // 401: the first unlock after the service's clock jumped is signed by the clock read before, and re-signed after reading it again.
    const s = await openTab(chromium.browser, [401, 403, 423]);
    await s.page.setViewportSize(PHONE);
    await s.page.goto(`${base}${consoleLinkIn(invitation.text, 'register')}`);
    await s.page.getByLabel('Password').fill(PASSWORD);
    await s.page.getByRole('button', { name: 'Create account' }).click();
    await s.page.getByText('2 shares are waiting for your email to be verified').waitFor();
    const verification = await t.sink.waitFor((mail) => mail.to.includes(staff) && /verify\?code=/.test(mail.text));
    await s.page.goto(`${base}${consoleLinkIn(verification.text, 'verify')}`);
    await s.page.getByText('Your email address is verified.').waitFor();
    await certifyBrowser(s, base, t.sink, staff);
    const entrance = s.page.locator('li.lock', { has: s.page.getByRole('link', { name: 'Main entrance' }) });
    await entrance.getByText('Your hours: Monday to Friday, 08:00–18:00 (Europe/London)').waitFor();
    assert.equal(await s.page.locator('li.lock').count(), 2, 'two doors, not the server room');
    await assertNoSeriousAxeViolations(s.page);
    await shoot(s.page, 'staff-hours');

    // Monday 10:00: inside his hours.
    await entrance.getByRole('button', { name: 'Unlock Main entrance' }).click();
    await entrance.getByText('Main entrance confirmed: unlocked.').waitFor();
    assert.equal(devices[0]!.commands.length, 1);
    // Monday 19:00: outside them, refused by the service (the lock never hears of it).
    clock.set(MONDAY_10 + 9 * 3600);
    await entrance.getByRole('button', { name: 'Unlock Main entrance' }).click();
    await entrance.getByRole('alert').waitFor();
    await entrance.getByRole('alert').getByText(/outside the share's weekly hours/).waitFor();
    assert.equal(devices[0]!.commands.length, 1);
    assert.match(s.page.url(), /\/console\/$/, 'still signed in');

    // The manager watches it in one feed across the doors, refusals in plain words.
    await m.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'All doors' }).click();
    const feed = m.page.getByRole('table', { name: /What happened at your doors/ });
    await feed.getByText(`${staff} unlocked the door`).waitFor();
    await feed.getByText(new RegExp(`${staff.replace(/[.+]/g, '\\$&')} tried to unlock the door: refused, outside the share's weekly hours`)).waitFor();
    await m.page.getByRole('region', { name: 'Offline now' }).getByText(/Server room — never seen online/).waitFor();
    await m.page.getByLabel('Only refusals').check();
    await m.page.getByLabel('Person').fill('staff-');
    await feed.locator('tbody tr:not(.refused)').first().waitFor({ state: 'detached' });
    assert.ok((await feed.locator('tbody tr').allTextContents()).every((row) => row.includes(`${staff} tried to`)), 'only his refusals');
    await shoot(m.page, 'feed');

    // The last administrator of a door others use is told before leaving, and refused.
    await m.page.goto(`${base}/console/locks/${doors[0]!.id}/members`);
    await m.page.getByRole('button', { name: 'Leave this lock' }).click();
    await m.page.getByText(/You are its last admin and others still use it/).waitFor();
    await m.page.getByRole('button', { name: 'Yes, leave this lock' }).click();
    await m.page.getByRole('alert').getByText(/last admin/).waitFor();
    assert.equal((await t.api.get(`/device/${doors[0]!.id}`, { token: manager.authToken })).status, 200, 'still a member');
    assert.deepEqual(m.errors, []);
    assert.deepEqual(s.errors, []);
    await m.context.close();
    await s.context.close();
  });
});
