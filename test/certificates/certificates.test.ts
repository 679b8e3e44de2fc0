import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { checkCertificate, generateEphemeralKey, requestCertificate, signVerificationCode, verifyCertificate, type EphemeralKey } from '../../src/client/index.js';
import { verifyCertificateChain } from '../../src/crypto/pki.js';
import { createLegacyUser, createUser, type AnyUser } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { codeIn } from '../helpers/smtp.js';
import { startSmsWebhook, type SmsWebhook } from './support.js';

describe('ephemeral key certificates', () => {
  let t: TestService;
  let smtp: SmtpSink;
  let sms: SmsWebhook;

  before(async () => {
    smtp = await startSmtpSink();
    sms = await startSmsWebhook();
    t = await startTestService({ SMTP_URL: smtp.url, SMS_WEBHOOK_URL: sms.url });
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
    await sms?.close();
  });

  const derOf = (key: EphemeralKey) => key.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  const post = (user: AnyUser, path: string, body: unknown) => t.api.post(path, { token: user.authToken, body });

  async function emailCode(user: AnyUser, key: EphemeralKey): Promise<string> {
    const before = smtp.messages.length;
    await verifyCertificate(t.service.url, user.authToken, key, 'EMAIL');
    const message = await smtp.waitFor((m) => m.to.includes(user.email) && smtp.messages.indexOf(m) >= before);
    return codeIn(message.text);
  }

  async function assertChainFor(user: AnyUser, chain: string[]): Promise<void> {
    assert.equal(chain.length, 3);
    const leaf = await verifyCertificateChain(chain, t.service.ctx.pki.rootCertificate, Date.now() / 1000);
    assert.equal(leaf.userId, user.userId);
  }

  it('asks for a check for a new key (423), then certifies it after an emailed code, and not again', async () => {
    const user = await createUser(t.api);
    const key = generateEphemeralKey();
    const first = await post(user, '/auth/certificate', { ephemeralKey: key.publicKeyBase64 });
    assert.equal(first.status, 423);
    assert.equal(first.body.code, 423.1);

    const code = await emailCode(user, key);
    const result = await checkCertificate(t.service.url, user.authToken, key, code);
    assert.equal(result.userId, user.userId);
    await assertChainFor(user, result.certificateChain);

    // The verified key, raw or DER, is certified straight away from now on.
    for (const ephemeralKey of [key.publicKeyBase64, derOf(key)]) {
      const again = await post(user, '/auth/certificate', { ephemeralKey });
      assert.equal(again.status, 200, again.text);
      await assertChainFor(user, again.body.certificateChain);
    }
    // Another user holding no proof for it still needs a check.
    const other = await createUser(t.api);
    assert.equal((await post(other, '/auth/certificate', { ephemeralKey: key.publicKeyBase64 })).status, 423);
  });

  it('accepts a DER key for the whole flow and answers the same chain shape', async () => {
    const user = await createUser(t.api);
    const key = generateEphemeralKey();
    assert.equal((await post(user, '/auth/certificate', { ephemeralKey: derOf(key) })).status, 423);
    const before = smtp.messages.length;
    assert.equal((await t.api.post('/auth/certificate/verify?method=EMAIL', { token: user.authToken, body: { ephemeralKey: derOf(key) } })).status, 200);
    const message = await smtp.waitFor((m) => m.to.includes(user.email) && smtp.messages.indexOf(m) >= before);
    const check = await post(user, '/auth/certificate/check', { verificationSignature: signVerificationCode(key, codeIn(message.text)) });
    assert.equal(check.status, 200, check.text);
    await assertChainFor(user, check.body.certificateChain);
  });

  it('refuses keys that are not Ed25519 with 400', async () => {
    const user = await createLegacyUser(t.api);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    for (const ephemeralKey of [rsa, ec, user.publicKey, 'not base64!', Buffer.alloc(31, 1).toString('base64'), Buffer.alloc(32).toString('base64')]) {
      const res = await post(user, '/auth/certificate', { ephemeralKey });
      assert.equal(res.status, 400, `${ephemeralKey.slice(0, 20)}: ${res.text}`);
      assert.equal((await post(user, '/auth/certificate/verify', { ephemeralKey })).status, 400);
    }
    assert.equal((await post(user, '/auth/certificate', {})).status, 400);
  });

  it('sends the code by SMS to the account telephone, and refuses a channel without an address (400)', async () => {
    const user = await createUser(t.api);
    const key = generateEphemeralKey();
    const telephoneless = await t.api.post('/auth/certificate/verify?method=SMS', { token: user.authToken, body: { ephemeralKey: key.publicKeyBase64 } });
    assert.equal(telephoneless.status, 400);

    const telephone = `+4477009${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}`;
    await t.service.ctx.db.kysely.updateTable('users').set({ telephone }).where('id', '=', user.userId).execute();
    await verifyCertificate(t.service.url, user.authToken, key, 'SMS');
    const text = await sms.waitFor((m) => m.to === telephone);
    assert.equal(text.channel, 'SMS');
    const result = await checkCertificate(t.service.url, user.authToken, key, codeIn(text.text));
    await assertChainFor(user, result.certificateChain);
  });

  it('answers 401 to a wrong signature or code, and kills a code after five wrong checks', async () => {
    const user = await createUser(t.api);
    const key = generateEphemeralKey();
    const code = await emailCode(user, key);
    const wrongCode = code === '000000' ? '111111' : '000000';
    const impostor = generateEphemeralKey();

    const bySomeoneElse = await post(user, '/auth/certificate/check', { verificationSignature: signVerificationCode(impostor, code) });
    assert.equal(bySomeoneElse.status, 401);
    assert.equal(bySomeoneElse.body.error, 'verification_failed', "a wrong code is not the session's end (issue 29: clients sign out on 'unauthenticated' only)");
    for (let i = 0; i < 4; i++) {
      assert.equal((await post(user, '/auth/certificate/check', { verificationSignature: signVerificationCode(key, wrongCode) })).status, 401);
    }
    // Five wrong checks spent: the right answer comes too late.
    assert.equal((await post(user, '/auth/certificate/check', { verificationSignature: signVerificationCode(key, code) })).status, 401);
    assert.equal((await post(user, '/auth/certificate', { ephemeralKey: key.publicKeyBase64 })).status, 423);
    assert.equal((await post(user, '/auth/certificate/check', { verificationSignature: 'not base64!' })).status, 400);
  });

  it('uses a code once', async () => {
    const user = await createUser(t.api);
    const key = generateEphemeralKey();
    const code = await emailCode(user, key);
    await checkCertificate(t.service.url, user.authToken, key, code);
    assert.equal((await post(user, '/auth/certificate/check', { verificationSignature: signVerificationCode(key, code) })).status, 401);
  });

  it('allows at most three pending verifications per user (429)', async () => {
    const user = await createUser(t.api);
    for (let i = 0; i < 3; i++) await verifyCertificate(t.service.url, user.authToken, generateEphemeralKey(), 'EMAIL');
    const fourth = await post(user, '/auth/certificate/verify', { ephemeralKey: generateEphemeralKey().publicKeyBase64 });
    assert.equal(fourth.status, 429);
    assert.ok(Number(fourth.headers.get('retry-after')) > 0);
    // Another user is not affected.
    const other = await createUser(t.api);
    await verifyCertificate(t.service.url, other.authToken, generateEphemeralKey());
  });

  it('needs authentication', async () => {
    const key = generateEphemeralKey();
    assert.equal((await t.api.post('/auth/certificate', { body: { ephemeralKey: key.publicKeyBase64 } })).status, 401);
    await assert.rejects(requestCertificate(t.service.url, 'nope', key), (err: Error & { status?: number }) => err.status === 401);
  });
});
