import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { uniqueEmail } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { assertError, assertLegacyKeyPair, assertTokenPair, findUserRow, insertOrphan, subjectOf, usersWithEmail } from './support.js';

const password = 'correct horse battery';

describe('registration with a pending invite', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  it('an invite cannot log in before it is taken over', async () => {
    const email = uniqueEmail('orphan-login');
    await insertOrphan(t, email, { withKey: true });
    assertError(await t.api.post('/auth/token', { body: { email, password } }), 401);
  });

  it('v1 takes the invite over: same user id, the invite key, no longer an orphan', async () => {
    const email = uniqueEmail('takeover');
    const orphan = await insertOrphan(t, email, { withKey: 'own' });
    const res = await t.api.post('/auth/register', { body: { email, password, displayName: 'Invited' } });
    assertTokenPair(res, true);
    assert.equal(subjectOf(res.body.authToken), orphan.id);
    assert.equal(res.body.publicKey, orphan.publicKey, 'the invite keeps its key (locks were shared to it)');
    assertLegacyKeyPair(res.body.publicKey, res.body.privateKey);
    const row = await findUserRow(t, orphan.id);
    assert.equal(row?.orphan, 0);
    assert.match(row?.password_hash ?? '', /^\$argon2id\$/);
    assert.equal((await usersWithEmail(t, email)).length, 1);
    const login = await t.api.post('/auth/token', { body: { email, password } });
    assert.equal(login.status, 200);
    assert.equal(login.body.privateKey, res.body.privateKey);
    const account = await t.api.get('/account', { token: res.body.authToken });
    assert.deepEqual(account.body, { publicKey: orphan.publicKey, email, displayName: 'Invited', emailVerified: false });
  });

  it('v1 takes over an invite that has no key and stores the key it returns', async () => {
    const email = uniqueEmail('keyless');
    const orphan = await insertOrphan(t, email);
    const res = await t.api.post('/auth/register', { body: { email, password } });
    assertTokenPair(res, true);
    assert.equal(subjectOf(res.body.authToken), orphan.id);
    assertLegacyKeyPair(res.body.publicKey, res.body.privateKey);
    const login = await t.api.post('/auth/token', { body: { email, password } });
    assert.equal(login.body.publicKey, res.body.publicKey, 'login v1 returns the key registration returned');
    assert.equal(login.body.privateKey, res.body.privateKey);
  });

  for (const version of [2, 3]) {
    it(`v${version} without force answers 409 and leaves the invite alone`, async () => {
      const email = uniqueEmail(`invite-v${version}`);
      const orphan = await insertOrphan(t, email, { withKey: true });
      for (const query of ['', '?force=false', '?force=False', '?force=0']) {
        const res = await t.api.post(`/auth/register${query}`, { version, body: { email, password } });
        assertError(res, 409);
        assert.equal(res.body.error, 'pending_invite');
      }
      const row = await findUserRow(t, orphan.id);
      assert.equal(row?.orphan, 1);
      assert.equal(row?.password_hash, null);
    });

    it(`v${version} with force=true discards the invite and creates a new account`, async () => {
      const email = uniqueEmail(`force-v${version}`);
      const orphan = await insertOrphan(t, email, { withKey: true });
      const res = await t.api.post('/auth/register?force=true', { version, body: { email, password } });
      assertTokenPair(res, version === 2);
      const userId = subjectOf(res.body.authToken);
      assert.notEqual(userId, orphan.id);
      assert.equal(await findUserRow(t, orphan.id), undefined, 'the invite is gone');
      const rows = await usersWithEmail(t, email);
      assert.deepEqual(
        rows.map((r) => [r.id, r.orphan]),
        [[userId, 0]],
      );
      if (version === 2) assert.notEqual(res.body.publicKey, orphan.publicKey);
    });
  }

  it('force is read as clients write a boolean: True (Python) and 1 discard the invite too', async () => {
    for (const flag of ['True', '1', 'TRUE']) {
      const email = uniqueEmail(`force-${flag}`);
      const orphan = await insertOrphan(t, email, { withKey: true });
      const res = await t.api.post(`/auth/register?force=${flag}`, { version: 3, body: { email, password } });
      assertTokenPair(res, false);
      assert.equal(await findUserRow(t, orphan.id), undefined, flag);
    }
  });

  it('force=true without an invite registers normally', async () => {
    const res = await t.api.post('/auth/register?force=true', { version: 2, body: { email: uniqueEmail('force-none'), password } });
    assertTokenPair(res, true);
  });

  it('an invite in another namespace does not block a direct registration', async () => {
    const email = uniqueEmail('other-ns');
    const now = Date.now() / 1000;
    await t.service.ctx.db.kysely
      .insertInto('users')
      .values({ id: crypto.randomUUID(), namespace: crypto.randomUUID(), external_id: null, email, email_normalised: email, email_verified: 0, telephone: null, telephone_verified: 0, display_name: null, password_hash: null, public_key: null, private_key_sealed: null, orphan: 1, created: now, updated: now })
      .execute();
    const res = await t.api.post('/auth/register', { version: 2, body: { email, password } });
    assertTokenPair(res, true);
  });
});
