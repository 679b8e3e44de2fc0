import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { createThirdParty, identityJwe, thirdPartyToken, type ThirdParty } from '../applications/helpers.js';

describe('directory queries by identity (JWE)', () => {
  let t: TestService;
  let owner: TestUser;
  let partyA: ThirdParty;
  let partyB: ThirdParty;
  let callerA: string;
  let callerB: string;
  before(async () => {
    t = await startTestService();
    owner = await createUser(t.api);
    partyA = await createThirdParty(t.api, { owner });
    partyB = await createThirdParty(t.api, { owner });
    callerA = await thirdPartyToken(partyA);
    callerB = await thirdPartyToken(partyB);
  });
  after(() => t.close());

  const query = (token: string, identity: string) => t.api.post('/directory/query', { token, body: { identity } });

  it('creates the user a valid identity names, then finds the same one', async () => {
    const sub = `invitee-${randomUUID()}`;
    const email = `${sub}@example.com`;
    const token = await thirdPartyToken(partyA, { sub, claims: { email, email_verified: true, name: 'Invitee' } });
    const identity = await identityJwe(token, partyA.record.encryptionKey);
    const first = await query(callerA, identity);
    assert.equal(first.status, 200);
    assert.match(first.body.id, /^[0-9a-f-]{36}$/);
    assert.match(first.body.publicKey, /^MII/);
    const again = await query(callerA, await identityJwe(token, partyA.record.encryptionKey));
    assert.deepEqual(again.body, first.body);
    assert.deepEqual((await t.api.post('/directory/query', { token: callerA, body: { foreignKey: sub } })).body, first.body);
    assert.deepEqual((await t.api.post('/directory/query', { token: callerA, body: { email } })).body, first.body);
    const account = await t.api.get('/account', { token });
    assert.deepEqual(account.body, { publicKey: first.body.publicKey, email, displayName: 'Invitee', emailVerified: true });
  });

  it('rejects a JWE made for another application (400)', async () => {
    const token = await thirdPartyToken(partyA);
    const res = await query(callerA, await identityJwe(token, partyB.record.encryptionKey));
    assert.equal(res.status, 400);
    const { kid: _kid, ...withoutKid } = partyB.record.encryptionKey;
    assert.equal((await query(callerA, await identityJwe(token, withoutKid))).status, 400);
  });

  it('rejects a token of another application inside the JWE (400), and creates no user', async () => {
    const sub = `foreign-${randomUUID()}`;
    const tokenOfB = await thirdPartyToken(partyB, { sub });
    assert.equal((await query(callerA, await identityJwe(tokenOfB, partyA.record.encryptionKey))).status, 400);
    const forged = await thirdPartyToken(partyA, { sub, key: partyB });
    assert.equal((await query(callerA, await identityJwe(forged, partyA.record.encryptionKey))).status, 400);
    const users = await t.service.ctx.db.kysely.selectFrom('users').select('id').where('external_id', '=', sub).execute();
    assert.equal(users.length, 0);
    assert.equal((await query(callerB, await identityJwe(tokenOfB, partyB.record.encryptionKey))).status, 200);
  });

  it('rejects expired tokens, other algorithms and garbage (400)', async () => {
    const expired = await thirdPartyToken(partyA, { expiresIn: -120 });
    assert.equal((await query(callerA, await identityJwe(expired, partyA.record.encryptionKey))).status, 400);
    const valid = await thirdPartyToken(partyA);
    assert.equal((await query(callerA, await identityJwe(valid, partyA.record.encryptionKey, 'RSA-OAEP', 'A256GCM'))).status, 400);
    assert.equal((await query(callerA, await identityJwe(valid, partyA.record.encryptionKey, 'RSA-OAEP-256', 'A128GCM'))).status, 400);
    assert.equal((await query(callerA, await identityJwe('not a token', partyA.record.encryptionKey))).status, 400);
    assert.equal((await query(callerA, 'not.a.jwe.at.all')).status, 400);
    assert.equal((await query(callerA, valid)).status, 400, 'a bare token is not a JWE');
  });

  it('is for application users: a direct caller gets 400', async () => {
    const token = await thirdPartyToken(partyA);
    assert.equal((await query(owner.authToken, await identityJwe(token, partyA.record.encryptionKey))).status, 400);
  });
});
