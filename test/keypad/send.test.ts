import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createUser } from '../helpers/factories.js';
import { createTestClock } from '../helpers/clock.js';
import { capturingLogger } from '../helpers/mqtt.js';
import { auditEntriesOf, claimLock, createVerifiedUser, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { mailSent } from '../helpers/wait.js';
import { certify, type Signer } from '../execute/support.js';
import { assertNoDigits, makeCode, removeCode } from './support.js';

/**
 * Issue 30 point 5: "send to the holder". The creator of a code, right after creating it, has it
 * emailed with the digits they hold; only to an address that proved itself, with nothing its sender
 * wrote; never the digits anywhere else.
 */
describe('keypad codes: sending a code to its holder', () => {
  const clock = createTestClock();
  const logs = capturingLogger();
  let t: TestService;
  let sink: SmtpSink;
  let admin: Signer;

  before(async () => {
    sink = await startSmtpSink();
    t = await startTestService({ CERT_CHECK: 'never', SMTP_URL: sink.url }, { clock, logger: logs.logger });
    admin = await certify(t, await createVerifiedUser(t));
  });
  after(async () => {
    await t?.close();
    await sink?.close();
  });

  const send = (token: string, codeId: string, body: object) => t.api.post(`/lock-codes/${codeId}/send`, { token, body });

  it("emails a member's code to the member's verified address, with its terms, and nothing else of it anywhere", async () => {
    const lock = await claimLock(t, admin);
    const member = await createVerifiedUser(t);
    await shareLock(t, lock.id, admin, member.userId);
    const code = await makeCode(t, admin, [lock.id], { user: member.userId, maxUses: 1, schedule: [{ start: '08:00', end: '18:00', timezone: 'Europe/London', days: ['MONDAY', 'FRIDAY'] }] });
    const before = sink.messages.length;
    const res = await send(admin.authToken, code.id, { digits: code.digits });
    assert.equal(res.status, 204, res.text);
    await mailSent(t);
    const mails = sink.messages.slice(before);
    assert.deepEqual(mails.map((m) => m.to), [[member.email]]);
    const mail = mails[0]!;
    assert.match(mail.text, new RegExp(`is ${code.digits}\\.`));
    assert.match(mail.text, /opens the door once/);
    assert.match(mail.text, /Monday, Friday, 08:00–18:00 \(Europe\/London\)/);
    assertNoDigits(logs.lines, code.digits, 'the service log');
    assertNoDigits(await auditEntriesOf(t, lock.id), code.digits, 'the audit trail');
    assertNoDigits(res.text, code.digits, 'the answer');
  });

  it('refuses wrong digits, another administrator, a non-administrator, and a code too old or no longer live', async () => {
    const lock = await claimLock(t, admin);
    const member = await createVerifiedUser(t);
    const other = await createVerifiedUser(t);
    await shareLock(t, lock.id, admin, member.userId);
    await shareLock(t, lock.id, admin, other.userId, { role: 'ADMIN' });
    const code = await makeCode(t, admin, [lock.id], { user: member.userId });
    const wrong = code.digits === '97531' ? '97532' : '97531';
    const refused = await send(admin.authToken, code.id, { digits: wrong });
    assert.equal(refused.status, 400, refused.text);
    assertNoDigits(refused.text, code.digits, 'the refusal');
    assert.equal((await send(other.authToken, code.id, { digits: code.digits })).status, 403, 'only its creator sends it');
    assert.equal((await send(member.authToken, code.id, { digits: code.digits })).status, 404, 'a USER of the lock does not see its codes');
    const stranger = await createVerifiedUser(t);
    assert.equal((await send(stranger.authToken, code.id, { digits: code.digits })).status, 404);
    assert.equal((await send(admin.authToken, randomUUID(), { digits: code.digits })).status, 404);
    assert.equal((await send(admin.authToken, code.id, { digits: code.digits, email: member.email })).status, 400, "a member's code goes to the member's own address");

    const revoked = await makeCode(t, admin, [lock.id], { guest: 'Gone' });
    const off = await t.api.post(`/lock-codes/${revoked.id}/revoke`, { token: admin.authToken, body: { tokens: [removeCode(admin, lock.id, revoked.id)] } });
    assert.equal(off.status, 200, off.text);
    assert.equal((await send(admin.authToken, revoked.id, { digits: revoked.digits, email: member.email })).status, 409, 'a revoked code opens nothing');

    clock.advance(3601);
    assert.equal((await send(admin.authToken, code.id, { digits: code.digits })).status, 409, 'only right after its creation');
  });

  it("sends a guest's code only to an address a Latchkey account verified, and a member's only to a verified address", async () => {
    const lock = await claimLock(t, admin);
    const unverified = await createUser(t.api);
    await shareLock(t, lock.id, admin, unverified.userId);
    const members = await makeCode(t, admin, [lock.id], { user: unverified.userId });
    // A member's address no longer verified (shares are held until it is, so only a change made since leads here).
    await t.service.ctx.db.kysely.updateTable('users').set({ email_verified: 0 }).where('id', '=', unverified.userId).execute();
    assert.equal((await send(admin.authToken, members.id, { digits: members.digits })).status, 409);

    const guestName = 'Cleaner — call me on 555 0100';
    const code = await makeCode(t, admin, [lock.id], { guest: guestName, maxUses: 3 });
    const guest = await createVerifiedUser(t);
    await mailSent(t);
    const before = sink.messages.length;
    // Answered as a sent one, so the answer tells nobody whether the address has a verified account; not sent.
    const unproven = [
      await send(admin.authToken, code.id, { digits: code.digits, email: 'nobody-here@example.com' }),
      await send(admin.authToken, code.id, { digits: code.digits, email: unverified.email }),
    ];
    assert.deepEqual(unproven.map((res) => [res.status, res.text]), [[204, ''], [204, '']], 'an address that never proved itself, one not verified');
    assert.equal((await send(admin.authToken, code.id, { digits: code.digits })).status, 400, "a guest's address is needed");
    assert.equal((await send(admin.authToken, code.id, { digits: code.digits, email: guest.email.toUpperCase() })).status, 204);
    // Every mail queued so far is in the sink: the verified guest's alone, none to the two before.
    await mailSent(t);
    const mails = sink.messages.slice(before);
    assert.deepEqual(mails.map((m) => m.to), [[guest.email]]);
    assert.match(mails[0]!.text, /opens the door 3 times/);
    assert.ok(!mails[0]!.text.includes('555 0100') && !mails[0]!.html.includes('555 0100'), "nothing the sender wrote (the guest's name)");
  });
});
