import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkCertificate, generateEphemeralKey, verifyCertificate } from '../../src/client/index.js';
import { verifyCertificateChain } from '../../src/crypto/pki.js';
import { createUser } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { codeIn } from '../helpers/smtp.js';

/** CERT_CHECK (operations.md): `new-key` is covered in certificates.test.ts; here `always` and `never`. */
describe('the CERT_CHECK policy', () => {
  describe('always', () => {
    let t: TestService;
    let smtp: SmtpSink;
    before(async () => {
      smtp = await startSmtpSink();
      t = await startTestService({ SMTP_URL: smtp.url, CERT_CHECK: 'always' });
    });
    after(async () => {
      await t?.close();
      await smtp?.close();
    });

    it('asks for a check every time, even for a key checked before', async () => {
      const user = await createUser(t.api);
      const key = generateEphemeralKey();
      const request = () => t.api.post('/auth/certificate', { token: user.authToken, body: { ephemeralKey: key.publicKeyBase64 } });
      assert.equal((await request()).status, 423);

      const sent = smtp.messages.length;
      await verifyCertificate(t.service.url, user.authToken, key, 'EMAIL');
      const message = await smtp.waitFor((m) => m.to.includes(user.email) && smtp.messages.indexOf(m) >= sent);
      const checked = await checkCertificate(t.service.url, user.authToken, key, codeIn(message.text));
      const leaf = await verifyCertificateChain(checked.certificateChain, t.service.ctx.pki.rootCertificate, Date.now() / 1000);
      assert.equal(leaf.userId, user.userId, 'the check itself certifies the key');

      const again = await request();
      assert.equal(again.status, 423, 'a passed check does not exempt the key under `always`');
      assert.equal(again.body.code, 423.1);
    });
  });

  describe('never', () => {
    let t: TestService;
    before(async () => {
      t = await startTestService({ CERT_CHECK: 'never' });
    });
    after(() => t?.close());

    it('certifies a new key at once, for any user', async () => {
      for (let i = 0; i < 2; i++) {
        const user = await createUser(t.api);
        const key = generateEphemeralKey();
        const res = await t.api.post('/auth/certificate', { token: user.authToken, body: { ephemeralKey: key.publicKeyBase64 } });
        assert.equal(res.status, 200, res.text);
        const leaf = await verifyCertificateChain(res.body.certificateChain as string[], t.service.ctx.pki.rootCertificate, Date.now() / 1000);
        assert.equal(leaf.userId, user.userId);
      }
    });

    it('still refuses a key that is not Ed25519, and an unauthenticated caller', async () => {
      const user = await createUser(t.api);
      assert.equal((await t.api.post('/auth/certificate', { token: user.authToken, body: { ephemeralKey: Buffer.alloc(31).toString('base64') } })).status, 400);
      assert.equal((await t.api.post('/auth/certificate', { body: { ephemeralKey: generateEphemeralKey().publicKeyBase64 } })).status, 401);
    });
  });
});
