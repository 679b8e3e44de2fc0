import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createThirdParty, thirdPartyToken } from '../applications/helpers.js';
import { createLegacyUser, uniqueEmail } from '../helpers/factories.js';
import { assertSdkModel, sdkRequest, SDK_MODELS } from '../helpers/sdk-wire.js';
import { claimLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';

/** LockOperationsClient.batchGetUserPublicKey: Accept v2, BatchUserPublicKeyRequest with every list member present. */
const batchBody = (lists: Partial<Record<'email' | 'telephone' | 'localKey' | 'foreignKey', string[]>>) => ({
  email: lists.email ?? null,
  telephone: lists.telephone ?? null,
  localKey: lists.localKey ?? null,
  foreignKey: lists.foreignKey ?? null,
});

describe('POST /directory/query v2: batch lookup as the SDK sends it', () => {
  const t = useService({ withUser: true });
  const batch = (token: string, body: unknown) => sdkRequest(t.api, 'POST', '/directory/query', { token, version: 2, body });
  // A direct caller looks people up only while administering a lock (issue 27 point 1).
  before(() => claimLock(t, t.user));

  it('answers the users found by email and localKey, each once, in the order asked, without the unknown ones', async () => {
    const a = await createLegacyUser(t.api);
    const b = await createLegacyUser(t.api);
    const res = await batch(t.user.authToken, batchBody({ email: [a.email, uniqueEmail('nobody'), b.email], localKey: [a.userId, randomUUID()] }));
    assert.equal(res.status, 200, res.text);
    assertSdkModel(res.body, { list: SDK_MODELS.BasicBatchUserPublicKeyResponse });
    assert.deepEqual(res.body.map((u: { id: string }) => u.id), [a.userId, b.userId]);
    assert.equal(res.body[0].email, a.email);
    assert.equal(res.body[0].publicKey, a.publicKey);
  });

  it("an application's users by foreignKey and telephone, with their foreignKey and phone", async () => {
    const party = await createThirdParty(t.api);
    const sub = `sub-${randomUUID()}`;
    const telephone = `+4477009${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}`;
    const token = await thirdPartyToken(party, { sub, claims: { email: `${sub}@example.com`, email_verified: true, telephone, telephone_verified: true } });
    assert.equal((await t.api.get('/account', { token })).status, 200);
    const res = await batch(token, batchBody({ foreignKey: [sub], telephone: [telephone] }));
    assert.equal(res.status, 200, res.text);
    assertSdkModel(res.body, { list: SDK_MODELS.BasicBatchUserPublicKeyResponse });
    assert.equal(res.body.length, 1);
    assert.equal(res.body[0].foreignKey, sub);
    assert.equal(res.body[0].phone, telephone);
    // Confined to the caller's namespace: a direct caller does not see the application's user.
    assert.deepEqual((await batch(t.user.authToken, batchBody({ telephone: [telephone] }))).body, []);
  });

  it("shows only the keys each user was found by: a user id or email reveals no other contact detail", async () => {
    const party = await createThirdParty(t.api);
    const sub = `sub-${randomUUID()}`;
    const email = `${sub}@example.com`;
    const telephone = `+4477008${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}`;
    const token = await thirdPartyToken(party, { sub, claims: { email, email_verified: true, telephone, telephone_verified: true } });
    const me = await t.api.get('/account', { token });
    assert.equal(me.status, 200);
    const byForeignKey = await batch(token, batchBody({ foreignKey: [sub] }));
    assert.equal(byForeignKey.status, 200, byForeignKey.text);
    const id = byForeignKey.body[0].id;
    assert.deepEqual(Object.keys(byForeignKey.body[0]).sort(), ['foreignKey', 'id', 'publicKey']);
    const byLocalKey = await batch(token, batchBody({ localKey: [id] }));
    assert.deepEqual(Object.keys(byLocalKey.body[0]).sort(), ['id', 'publicKey']);
    const byEmail = await batch(token, batchBody({ email: [email] }));
    assert.deepEqual(Object.keys(byEmail.body[0]).sort(), ['email', 'id', 'publicKey']);
    const byPhone = await batch(token, batchBody({ telephone: [telephone] }));
    assert.deepEqual(Object.keys(byPhone.body[0]).sort(), ['id', 'phone', 'publicKey']);
    // A direct user found by id: no email.
    const other = await createLegacyUser(t.api);
    const direct = await batch(t.user.authToken, batchBody({ localKey: [other.userId] }));
    assert.deepEqual(direct.body, [{ id: other.userId, publicKey: other.publicKey }]);
  });

  it('reads the Accept list however the HTTP engine joins the two values', async () => {
    const a = await createLegacyUser(t.api);
    for (const accept of ['application/vnd.doordeck.api-v2+json,application/json', 'application/vnd.doordeck.api-v2+json, application/json']) {
      const res = await t.api.post('/directory/query', { token: t.user.authToken, headers: { accept }, rawBody: JSON.stringify(batchBody({ email: [a.email] })), contentType: 'application/json' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.map((u: { id: string }) => u.id), [a.userId]);
    }
  });

  it('nothing found is an empty list, not a 404', async () => {
    const res = await batch(t.user.authToken, batchBody({ email: [uniqueEmail('none')] }));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, []);
  });

  it('refuses more than 25 values in all, none at all, and values of the wrong form', async () => {
    const many = Array.from({ length: 13 }, () => uniqueEmail('many'));
    const tooMany = await batch(t.user.authToken, batchBody({ email: many, localKey: many.map(() => randomUUID()) }));
    assert.equal(tooMany.status, 400);
    assert.equal((await batch(t.user.authToken, batchBody({}))).status, 400);
    assert.equal((await batch(t.user.authToken, batchBody({ localKey: ['not-a-uuid'] }))).status, 400);
    assert.equal((await batch(t.user.authToken, { email: [5], telephone: null })).status, 400);
    const ok = await batch(t.user.authToken, batchBody({ email: many.slice(0, 12), localKey: many.slice(0, 13).map(() => randomUUID()) }));
    assert.equal(ok.status, 200, '25 in all is allowed');
  });

  it('v1 (the single lookup) still answers one object, and refuses a list', async () => {
    const a = await createLegacyUser(t.api);
    const single = await sdkRequest(t.api, 'POST', '/directory/query', { token: t.user.authToken, body: { email: a.email, telephone: null, localKey: null, foreignKey: null, identity: null } });
    assert.equal(single.status, 200);
    assertSdkModel(single.body, SDK_MODELS.BasicUserPublicKeyResponse);
    assert.equal((await sdkRequest(t.api, 'POST', '/directory/query', { token: t.user.authToken, body: { email: [a.email] } })).status, 400);
  });
});
