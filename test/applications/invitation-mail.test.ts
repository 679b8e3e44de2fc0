import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { claimLock, verifyEmailDirectly } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';
import type { ReceivedEmail } from '../helpers/smtp.js';
import { mailSent } from '../helpers/wait.js';
import { createThirdParty, thirdPartyToken, type ThirdParty } from './helpers.js';

/**
 * Issue 27 point 2: invitation mail is no phishing relay. Mail to an address that has not proved
 * itself carries no text, link or sender address the sender chose, until the application's sender
 * address is proved by a code sent to it (asked for by an owner whose email is verified).
 */
describe('invitation mail from an application', () => {
  const t = useService({ withMail: true });
  const SENDER = `it-security-${randomUUID().slice(0, 8)}@acme.example`;
  const PHISH = {
    senderEmail: SENDER,
    senderName: 'Acme IT Security',
    callToAction: { actionTarget: 'https://evil.example/confirm', headline: 'Action required', actionText: 'Confirm now' },
  };

  /** An application with the phishing preferences, one of its users vouched for as ceo@acme.example, administering a lock. */
  async function phishingSetup(): Promise<{ party: ThirdParty; inviter: string }> {
    const party = await createThirdParty(t.api);
    assert.equal((await t.api.post(`/platform/application/${party.applicationId}`, { token: party.owner.authToken, body: { emailPreferences: PHISH } })).status, 204);
    const inviter = await thirdPartyToken(party, { claims: { email: 'ceo@acme.example', email_verified: true, name: 'The CEO' } });
    await claimLock(t, { authToken: inviter } as Parameters<typeof claimLock>[1]);
    return { party, inviter };
  }

  async function invite(token: string): Promise<ReceivedEmail> {
    const victim = `victim-${randomUUID()}@example.com`;
    const res = await t.api.post(`/share/invite/${encodeURIComponent(victim)}`, { token });
    assert.equal(res.status, 200, res.text);
    await mailSent(t);
    const message = t.sink.messages.find((m) => m.to.includes(victim));
    assert.ok(message, 'the invitation was sent');
    return message;
  }

  it('an unproved application sends nothing it chose: the service sender, no call to action, no vouched-for inviter', async () => {
    const { inviter } = await phishingSetup();
    const message = await invite(inviter);
    assert.notEqual(message.from, SENDER);
    assert.notEqual(message.fromName, 'Acme IT Security');
    for (const text of [message.subject, message.text, message.html]) {
      for (const chosen of ['Acme', 'evil.example', 'Confirm now', 'Action required', 'ceo@acme.example', 'The CEO']) assert.ok(!text.includes(chosen), `${JSON.stringify(chosen)} in ${text.slice(0, 200)}`);
    }
  });

  it('once an owner with a verified email proves the sender address, the branding applies (the inviter still unnamed)', async () => {
    const { party, inviter } = await phishingSetup();
    const base = `/platform/application/${party.applicationId}/sender/verify`;
    assert.equal((await t.api.post(base, { token: party.owner.authToken })).status, 403, 'an owner whose own email is unverified cannot');
    await verifyEmailDirectly(t, party.owner.userId);
    assert.equal((await t.api.post(base, { token: party.owner.authToken })).status, 204);
    await mailSent(t);
    const proof = t.sink.messages.find((m) => m.to.includes(SENDER));
    assert.ok(proof, 'the code went to the sender address');
    assert.ok(!proof.text.includes('Acme') && !proof.html.includes('evil.example'), 'in the service’s own words');
    const code = /Sender code: (\S+)/.exec(proof.text)?.[1];
    assert.ok(code);
    assert.equal((await t.api.put(`${base}?code=wrong`, { token: party.owner.authToken })).status, 400);
    const stranger = await createUser(t.api);
    assert.equal((await t.api.put(`${base}?code=${code}`, { token: stranger.authToken })).status, 404, 'only an owner');
    assert.equal((await t.api.put(`${base}?code=${code}`, { token: party.owner.authToken })).status, 204);

    const branded = await invite(inviter);
    assert.equal(branded.from, SENDER);
    assert.equal(branded.fromName, 'Acme IT Security');
    assert.ok(branded.html.includes('https://evil.example/confirm'), 'a proved sender answers for its own links');
    assert.ok(!branded.text.includes('ceo@acme.example'), "an application's claim about its user's email names nobody");

    // A new sender address is unproved again.
    const other = `other-${randomUUID().slice(0, 8)}@acme.example`;
    assert.equal((await t.api.post(`/platform/application/${party.applicationId}`, { token: party.owner.authToken, body: { emailPreferences: { ...PHISH, senderEmail: other } } })).status, 204);
    const plain = await invite(inviter);
    assert.notEqual(plain.from, other);
    assert.ok(!plain.html.includes('evil.example'));
  });
});
