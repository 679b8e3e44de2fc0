import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateEphemeralKey, requestCertificate } from '../../src/client/index.js';
import { assertError } from '../accounts/support.js';
import { certify, type Signer } from '../execute/support.js';
import { createTestClock } from '../helpers/clock.js';
import { uniqueEmail } from '../helpers/factories.js';
import { claimLock, createVerifiedUser, type ClaimedLock } from '../helpers/locks.js';
import { sdkExecute, sdkOperationToken, sdkRequest, sdkShareJson } from '../helpers/sdk-wire.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { connectTestLock } from '../helpers/test-lock.js';
import { eventually } from '../helpers/wait.js';

/**
 * Issue 28 point 6: `/share/invite/{email}?visitor=true` as the SDK sends it makes the invitation
 * lead to the console's web-only visit: the emailed one-time link (POST /share/visit) verifies the
 * email, brings in the shares held for it, lets the browser's key be certified without a code and
 * opens a session; a visitor's share is a USER's and time-limited.
 */
describe('visitors: the web-only invitation', () => {
  const clock = createTestClock();
  let t: TestService;
  let sink: SmtpSink;
  let admin: Signer;
  let lock: ClaimedLock;

  before(async () => {
    sink = await startSmtpSink();
    // The default CERT_CHECK (new-key): a visitor's browser key must not need a code all the same.
    t = await startTestService({ SMTP_URL: sink.url }, { clock });
    admin = await certify(t, await createVerifiedUser(t));
    lock = await claimLock(t, admin);
  });
  after(async () => {
    await t?.close();
    await sink?.close();
  });

  async function inviteVisitor() {
    const email = uniqueEmail('visitor');
    const res = await sdkRequest(t.api, 'POST', `/share/invite/${encodeURIComponent(email)}?visitor=true`, { token: admin.authToken });
    assert.equal(res.status, 200, res.text);
    const mail = await sink.waitFor((m) => m.to.includes(email));
    const link = /https?:\/\/[^\s"<>]+\/console\/visit#([A-Za-z0-9_-]+)/.exec(mail.text);
    assert.ok(link, mail.text);
    return { email, id: res.body.id as string, publicKey: res.body.publicKey as string, secret: link[1]!, mail };
  }
  const share = (user: { id: string; publicKey: string }, extra: { role?: 'ADMIN' | 'USER'; start?: number; end?: number } = {}) =>
    sdkExecute(t.api, admin.authToken, lock.id, sdkOperationToken(admin, lock.id, `{"type":"ADD_USER",${sdkShareJson({ user: user.id, publicKey: user.publicKey, ...extra }).slice(1)}`, { now: clock.now() }));

  it('leads the visitor from the email to a door they can open from the browser, for a day unless the share says otherwise', async () => {
    const visitor = await inviteVisitor();
    assert.match(visitor.mail.subject, /invited you/);
    assert.doesNotMatch(visitor.mail.text, /console\/register/, 'no account to create');
    assert.equal((await share(visitor)).status, 200);

    const key = generateEphemeralKey();
    const visit = await t.api.post('/share/visit', { body: { token: visitor.secret, ephemeralKey: key.publicKeyBase64 } });
    assert.equal(visit.status, 200, visit.text);
    assert.equal(visit.body.userId, visitor.id);
    assertError(await t.api.post('/share/visit', { body: { token: visitor.secret, ephemeralKey: key.publicKeyBase64 } }), 400);

    const locks = await t.api.get('/device', { token: visit.body.authToken });
    assert.equal(locks.status, 200, locks.text);
    const door = (locks.body as Array<{ id: string; role: string; start: unknown; end: unknown }>).find((l) => l.id === lock.id);
    assert.ok(door, 'the visitor has the door shared with the invitation');
    assert.equal(door.role, 'USER');
    const member = await t.service.ctx.db.kysely.selectFrom('lock_members').select(['starts_at', 'ends_at']).where('lock_id', '=', lock.id).where('user_id', '=', visitor.id).executeTakeFirstOrThrow();
    assert.deepEqual(member, { starts_at: null, ends_at: clock.now() + 86_400 }, 'no end given: a day');

    const certified = await requestCertificate(t.service.url, visit.body.authToken, key);
    assert.ok('certificateChain' in certified, 'the browser key is certified without a code');
    const device = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: lock.id, secret: lock.secret });
    try {
      await eventually(() => t.service.ctx.link.isOnline(lock.id), 'lock online');
      const signer = { userId: visitor.id, key, certificateChain: certified.certificateChain };
      const unlock = await sdkExecute(t.api, visit.body.authToken, lock.id, sdkOperationToken(signer, lock.id, '{"type":"MUTATE_LOCK","locked":false,"duration":null}', { now: clock.now() }));
      assert.equal(unlock.status, 200, unlock.text);
      clock.advance(86_401);
      const late = await sdkExecute(t.api, visit.body.authToken, lock.id, sdkOperationToken(signer, lock.id, '{"type":"MUTATE_LOCK","locked":false,"duration":null}', { now: clock.now() }));
      assertError(late, 403);
    } finally {
      await device.close();
    }
  });

  it('keeps the end a share gives, and refuses to make a visitor an ADMIN', async () => {
    const visitor = await inviteVisitor();
    assertError(await share(visitor, { role: 'ADMIN' }), 403);
    const end = clock.now() + 3 * 3600;
    assert.equal((await share(visitor, { start: clock.now() + 60, end })).status, 200);
    const shared = await t.service.ctx.db.kysely.selectFrom('lock_members').select(['role', 'starts_at', 'ends_at']).where('lock_id', '=', lock.id).where('user_id', '=', visitor.id).executeTakeFirstOrThrow();
    assert.deepEqual(shared, { role: 'USER', starts_at: clock.now() + 60, ends_at: end });
  });

  it('refuses a link that is unknown or past its seven days', async () => {
    const key = generateEphemeralKey();
    assertError(await t.api.post('/share/visit', { body: { token: 'not-a-link', ephemeralKey: key.publicKeyBase64 } }), 400);
    const visitor = await inviteVisitor();
    clock.advance(7 * 86_400 + 1);
    assertError(await t.api.post('/share/visit', { body: { token: visitor.secret, ephemeralKey: key.publicKeyBase64 } }), 400);
  });
});
