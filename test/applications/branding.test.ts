import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { verifyEmailDirectly } from '../helpers/locks.js';
import { startTestService, TEST_BASE_URL, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { createThirdParty, thirdPartyToken, type ThirdParty } from './helpers.js';

describe('email branded with the application’s preferences', () => {
  let sink: SmtpSink;
  let t: TestService;
  let party: ThirdParty;
  const logoUrl = `${TEST_BASE_URL}/cdn/applications/brand/logo.png`;
  before(async () => {
    sink = await startSmtpSink();
    t = await startTestService({ SMTP_URL: sink.url });
    party = await createThirdParty(t.api);
    const res = await t.api.post(`/platform/application/${party.applicationId}`, {
      token: party.owner.authToken,
      body: {
        logoUrl,
        emailPreferences: {
          senderEmail: 'doors@brand.example.com',
          senderName: 'Brand Doors',
          primaryColour: '#123456',
          secondaryColour: '#654321',
          callToAction: { actionTarget: 'https://brand.example.com/get-app', headline: 'Get the Brand app', actionText: 'Download' },
        },
      },
    });
    assert.equal(res.status, 204);
    // Branding reaches mail once the sender address is proved (issue 27 point 2).
    await verifyEmailDirectly(t, party.owner.userId);
    const verify = `/platform/application/${party.applicationId}/sender/verify`;
    assert.equal((await t.api.post(verify, { token: party.owner.authToken })).status, 204);
    const proof = await sink.waitFor((m) => m.to.includes('doors@brand.example.com'));
    const code = /Sender code: (\S+)/.exec(proof.text)?.[1];
    assert.equal((await t.api.put(`${verify}?code=${code}`, { token: party.owner.authToken })).status, 204);
  });
  after(async () => {
    await t.close();
    await sink.close();
  });

  it('sends an application user’s messages from the application, in its colours, with its logo and call to action', async () => {
    const email = `brand-${randomUUID()}@example.com`;
    const token = await thirdPartyToken(party, { claims: { email, email_verified: false } });
    assert.equal((await t.api.post('/account/email/reverify', { token })).status, 204);
    const message = await sink.waitFor((m) => m.to.includes(email));
    assert.equal(message.from, 'doors@brand.example.com');
    assert.equal(message.fromName, 'Brand Doors');
    assert.match(message.html, /#123456/);
    assert.match(message.html, /#654321/);
    assert.ok(message.html.includes(logoUrl));
    assert.match(message.html, /Get the Brand app/);
    assert.ok(message.html.includes('https://brand.example.com/get-app'));
  });

  it('keeps the service’s own look for direct users', async () => {
    const user = await createUser(t.api);
    const message = await sink.waitFor((m) => m.to.includes(user.email));
    assert.notEqual(message.from, 'doors@brand.example.com');
    assert.doesNotMatch(message.html, /#123456|Brand Doors/);
  });

  it('keeps the service’s own look until the sender address is proved', async () => {
    const unproved = await createThirdParty(t.api, { owner: party.owner });
    const preferences = { senderEmail: 'doors@unproved.example.com', senderName: 'Unproved Doors', primaryColour: '#123456' };
    assert.equal((await t.api.post(`/platform/application/${unproved.applicationId}`, { token: party.owner.authToken, body: { emailPreferences: preferences } })).status, 204);
    const email = `unproved-${randomUUID()}@example.com`;
    assert.equal((await t.api.post('/account/email/reverify', { token: await thirdPartyToken(unproved, { claims: { email } }) })).status, 204);
    const message = await sink.waitFor((m) => m.to.includes(email));
    assert.notEqual(message.from, 'doors@unproved.example.com');
    assert.doesNotMatch(message.html, /#123456|Unproved Doors/);
  });

  it('falls back to the defaults for preferences an application leaves out', async () => {
    const plain = await createThirdParty(t.api, { owner: party.owner });
    const email = `plain-${randomUUID()}@example.com`;
    await t.api.post('/account/email/reverify', { token: await thirdPartyToken(plain, { claims: { email } }) });
    const message = await sink.waitFor((m) => m.to.includes(email));
    assert.equal(message.fromName, 'Latchkey');
    assert.match(message.html, /#00283C/i);
  });
});
