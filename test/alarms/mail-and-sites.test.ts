import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { claimLock, createSite, createVerifiedUser, shareLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { lockReportsRecorded, mailSent } from '../helpers/wait.js';

/** Issue 31 point 2: alarms emailed to a lock's administrators (per lock, per kind), and listed per site. */
describe('alarm email and site alarms', () => {
  const t = useService({ withMail: true, env: { ALARM_SWEEP_MS: '0' } });
  const locks: TestLock[] = [];
  after(async () => {
    for (const lock of locks) await lock.client.endAsync(true).catch(() => undefined);
  });

  async function reporting(lockId: string, secret: string) {
    const lock = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: lockId, secret });
    locks.push(lock);
    let ts = 1;
    return async (health: Record<string, unknown>) => {
      await lock.client.publishAsync(`locks/${lockId}/state`, JSON.stringify({ locked: true, doorOpen: false, ts: ts++, ...health }), { qos: 1, retain: true });
      await lockReportsRecorded(t);
    };
  }
  const mailTo = (address: string) => t.sink.messages.filter((m) => m.to.includes(address) && m.subject.startsWith('Alarm:'));

  it('emails each active administrator with a verified address, naming the lock only by what the recipient or the operator chose', async () => {
    const owner = await createVerifiedUser(t);
    const claimed = await claimLock(t, owner, { name: 'Back door' });
    const unverifiedAdmin = await createUser(t.api);
    await shareLock(t, claimed.id, owner, unverifiedAdmin.userId, { role: 'ADMIN', unverified: true });
    const coAdmin = await createVerifiedUser(t);
    await shareLock(t, claimed.id, owner, coAdmin.userId, { role: 'ADMIN' });
    const user = await createVerifiedUser(t);
    await shareLock(t, claimed.id, owner, user.userId);
    // A co-administrator's text (the lock's default name) never reaches another's mailbox.
    const rename = await t.api.put(`/device/${claimed.id}`, { token: coAdmin.authToken, body: { settings: { defaultName: 'Visit evil.example now' } } });
    assert.ok(rename.status < 300, `rename ${rename.status}`);

    const report = await reporting(claimed.id, claimed.secret);
    await report({ tamper: true });
    await mailSent(t);
    const [mail, ...more] = mailTo(owner.email);
    assert.ok(mail, 'the owner is emailed');
    assert.equal(more.length, 0);
    assert.equal(mailTo(coAdmin.email).length, 1);
    assert.equal(mailTo(unverifiedAdmin.email).length, 0, 'no mail to an address that has not proved itself');
    assert.equal(mailTo(user.email).length, 0, 'users are not told');
    assert.match(mail.subject, /^Alarm: lock tampered with/);
    assert.ok(!`${mail.subject}${mail.text}${mail.html}`.includes('evil.example'), 'nothing another member chose');
    assert.ok(mail.text.includes(`/console/locks/${claimed.id}`));

    // Raised once, mailed once: the same report again sends nothing.
    await report({ tamper: true });
    await mailSent(t);
    assert.equal(mailTo(owner.email).length, 1);
  });

  it('mails only the kinds the lock chose', async () => {
    const owner = await createVerifiedUser(t);
    const claimed = await claimLock(t, owner);
    const set = await t.api.put(`/device/${claimed.id}/alarm-settings`, { token: owner.authToken, body: { mail: { jammed: false } } });
    assert.equal(set.status, 200);
    assert.equal(set.body.mail.jammed, false);
    assert.equal(set.body.mail.tampered, true);
    assert.equal((await t.api.put(`/device/${claimed.id}/alarm-settings`, { token: owner.authToken, body: { mail: { jammed: 'no' } } })).status, 400);
    const report = await reporting(claimed.id, claimed.secret);
    await report({ jammed: true });
    await report({ battery: 10 });
    await mailSent(t);
    assert.deepEqual(mailTo(owner.email).map((m) => m.subject.replace(/ \(.*$/, '')), ['Alarm: battery low']);
    assert.equal((await t.api.get(`/device/${claimed.id}/alarm-settings`, { token: owner.authToken })).body.mail.jammed, false);
  });

  it("lists a site's open alarms and history for the locks the caller administers", async () => {
    const owner = await createVerifiedUser(t);
    const site = await createSite(t);
    const first = await claimLock(t, owner, { siteId: site.id });
    const second = await claimLock(t, owner, { siteId: site.id });
    const elsewhere = await claimLock(t, owner);
    const member = await createVerifiedUser(t);
    await shareLock(t, first.id, owner, member.userId);
    const stranger = await createVerifiedUser(t);

    await (await reporting(first.id, first.secret))({ jammed: true });
    const secondReport = await reporting(second.id, second.secret);
    await secondReport({ tamper: true });
    await secondReport({ tamper: false });
    await (await reporting(elsewhere.id, elsewhere.secret))({ jammed: true });

    const res = await t.api.get(`/site/${site.id}/alarms`, { token: owner.authToken });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.open.map((a: { lockId: string; kind: string }) => [a.lockId, a.kind]), [[first.id, 'jammed']]);
    assert.deepEqual(res.body.history.map((a: { lockId: string; kind: string }) => [a.lockId, a.kind]), [[second.id, 'tampered']]);
    const asUser = await t.api.get(`/site/${site.id}/alarms`, { token: member.authToken });
    assert.equal(asUser.status, 200);
    assert.deepEqual(asUser.body, { open: [], history: [] });
    assert.equal((await t.api.get(`/site/${site.id}/alarms`, { token: stranger.authToken })).status, 404);
    assert.equal((await t.api.get('/site/not-a-site/alarms', { token: owner.authToken })).status, 404);

    // GET /alarms: every lock the caller administers, in a site or not (the console's list of locks); a USER's and a stranger's are empty.
    const all = await t.api.get('/alarms', { token: owner.authToken });
    assert.equal(all.status, 200);
    assert.deepEqual(new Set(all.body.open.map((a: { lockId: string; kind: string }) => `${a.lockId} ${a.kind}`)), new Set([`${first.id} jammed`, `${elsewhere.id} jammed`]));
    assert.deepEqual(all.body.history.map((a: { lockId: string; kind: string }) => [a.lockId, a.kind]), [[second.id, 'tampered']]);
    assert.deepEqual((await t.api.get('/alarms', { token: member.authToken })).body, { open: [], history: [] });
    assert.deepEqual((await t.api.get('/alarms', { token: stranger.authToken })).body, { open: [], history: [] });
  });
});
