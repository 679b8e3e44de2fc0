import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { mailSent } from '../helpers/wait.js';
import type { ReceivedEmail } from '../helpers/smtp.js';
import { useService } from '../helpers/service.js';

const PER_ADDRESS = 3;
// Not a multiple of PER_ADDRESS, so the ceiling falls in the middle of an address's allowance.
const ALL_ADDRESSES = 7;

/** A request as it arrives through the trusted proxy from the client at `address`. */
const from = (address: string) => ({ 'x-forwarded-for': address });

describe('password reset emails per (address, caller) and per address (RATE_VERIFY_PER_USER, RATE_PASSWORD_RESETS_PER_EMAIL_ALL)', () => {
  const t = useService({
    withMail: true,
    env: { RATE_VERIFY_PER_USER: String(PER_ADDRESS), RATE_PASSWORD_RESETS_PER_EMAIL_ALL: String(ALL_ADDRESSES), RATE_AUTH_PER_IP: '100000', TRUST_PROXY: '127.0.0.1,::1' },
  });

  const resetMails = (email: string): ReceivedEmail[] => t.sink.messages.filter((m) => m.to.includes(email) && /reset/i.test(m.subject));
  const tokenOf = (mail: ReceivedEmail): string => {
    const token = /Reset token: ([\w-]+)/.exec(mail.text)?.[1];
    assert.ok(token, mail.text);
    return token;
  };
  /** Waits until every email asked for so far has been sent, then expects exactly `count` reset emails to `email`. */
  async function settleAt(email: string, count: number): Promise<ReceivedEmail[]> {
    await mailSent(t);
    const mails = resetMails(email);
    assert.equal(mails.length, count, 'no further reset email');
    return mails;
  }
  async function ask(email: string, address: string): Promise<void> {
    const res = await t.api.post('/account/password/reset/initialize', { body: { email }, headers: from(address) });
    // The same answer whether or not an email went out.
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');
  }
  async function resetWith(userId: string, token: string, address: string): Promise<number> {
    const res = await t.api.post('/account/password/reset/verify', { body: { userId, token, password: 'a brand new password' }, headers: from(address) });
    return res.status;
  }

  it('an outsider asking again and again spends only their own allowance: the owner elsewhere still gets a reset email', async () => {
    const owner = await createUser(t.api);
    const outsider = '203.0.113.7';
    for (let i = 0; i < PER_ADDRESS + 3; i += 1) await ask(owner.email, outsider);
    await settleAt(owner.email, PER_ADDRESS);

    await ask(owner.email, '198.51.100.20');
    const mails = await settleAt(owner.email, PER_ADDRESS + 1);
    assert.equal(await resetWith(owner.userId, tokenOf(mails.at(-1)!), '198.51.100.20'), 204);
    assert.equal((await t.api.post('/auth/token', { body: { email: owner.email, password: 'a brand new password' } })).status, 200);
  });

  it('requests spread over many addresses meet the ceiling; past it no email goes out, and the last token sent still works', async () => {
    const owner = await createUser(t.api);
    let sent = 0;
    let last: ReceivedEmail | undefined;
    // The first address keeps asking after its own allowance: those refusals must not spend the ceiling.
    const addresses = ['192.0.2.1', '192.0.2.1', '192.0.2.1', '192.0.2.1', '192.0.2.1', '192.0.2.2', '192.0.2.2', '192.0.2.2', '192.0.2.3'];
    for (const address of addresses) {
      await ask(owner.email, address);
      if (address === '192.0.2.1' && sent === PER_ADDRESS) continue;
      sent += 1;
      // One at a time, so the last email is the one with the newest token.
      last = (await settleAt(owner.email, sent)).at(-1);
    }
    assert.equal(sent, ALL_ADDRESSES);
    // The ceiling is reached: a fresh address, the owner's own, gets no further email (and the same 204)...
    await ask(owner.email, '198.51.100.30');
    await ask(owner.email, '198.51.100.31');
    await settleAt(owner.email, ALL_ADDRESSES);
    // ...but nothing replaced the last token, which the owner already has.
    assert.equal(await resetWith(owner.userId, tokenOf(last!), '198.51.100.30'), 204);

    // Another address is untouched.
    const other = await createUser(t.api);
    await ask(other.email, '198.51.100.30');
    await settleAt(other.email, 1);
  });
});
