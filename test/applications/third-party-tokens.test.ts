import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, TEST_BASE_URL, type TestService } from '../helpers/service.js';
import { applicationBody, createThirdParty, signingKey, thirdPartyToken, type ThirdParty } from './helpers.js';

describe('third-party tokens', () => {
  let t: TestService;
  let party: ThirdParty;
  let otherParty: ThirdParty;
  before(async () => {
    t = await startTestService();
    // Both applications use the same kid, so only the issuer → application binding tells them apart.
    party = await createThirdParty(t.api, { kid: 'shared-kid' });
    otherParty = await createThirdParty(t.api, { kid: 'shared-kid' });
  });
  after(() => t.close());

  const usersOf = (applicationId: string) => t.service.ctx.db.kysely.selectFrom('users').selectAll().where('namespace', '=', applicationId).execute();

  it('creates the application user on first use, and keeps it in step with the claims', async () => {
    const sub = `user-${randomUUID()}`;
    const first = await thirdPartyToken(party, { sub, claims: { email: 'Ada@Example.com', email_verified: true, name: 'Ada', telephone: '+447700900123' } });
    const res = await t.api.get('/account', { token: first });
    assert.equal(res.status, 200);
    // The legacy key is made at the first GET /account: the SDK requires publicKey (docs/decisions.md).
    assert.equal(typeof res.body.publicKey, 'string');
    assert.deepEqual(res.body, { publicKey: res.body.publicKey, email: 'Ada@Example.com', displayName: 'Ada', emailVerified: true });
    const [user] = (await usersOf(party.applicationId)).filter((u) => u.external_id === sub);
    assert.ok(user);
    assert.equal(user.namespace, party.applicationId);
    assert.equal(user.telephone, '+447700900123');
    assert.equal(user.password_hash, null);

    assert.equal((await t.api.get('/account', { token: first })).status, 200, 'the cached token still works');
    const second = await thirdPartyToken(party, { sub, claims: { email: 'ada@new.example.com', email_verified: false, name: 'Ada L.' } });
    const updated = (await t.api.get('/account', { token: second })).body;
    assert.deepEqual(updated, { publicKey: res.body.publicKey, email: 'ada@new.example.com', displayName: 'Ada L.', emailVerified: false });
    const same = (await usersOf(party.applicationId)).filter((u) => u.external_id === sub);
    assert.equal(same.length, 1);
    assert.equal(same[0]!.id, user.id);
  });

  it('accepts RSA and Ed25519 signed tokens', async () => {
    for (const alg of ['RS256', 'PS384', 'EdDSA']) {
      const rsaParty = await createThirdParty(t.api, { owner: party.owner, alg });
      assert.equal((await t.api.get('/account', { token: await thirdPartyToken(rsaParty) })).status, 200, alg);
    }
  });

  it('refuses a registered issuer signed with another application’s key (401)', async () => {
    const forged = await thirdPartyToken(party, { key: otherParty });
    assert.equal((await t.api.get('/account', { token: forged })).status, 401);
    const wrongIssuer = await thirdPartyToken(party, { issuer: otherParty.issuer });
    assert.equal((await t.api.get('/account', { token: wrongIssuer })).status, 401);
  });

  it('refuses unknown issuers, unknown kids, bad audiences, expiry and missing claims (401)', async () => {
    const stranger = await signingKey('ES256', party.kid);
    const cases: Record<string, string> = {
      'unknown issuer': await thirdPartyToken(party, { issuer: 'https://unknown.example.com' }),
      'unregistered key': await thirdPartyToken(party, { key: stranger }),
      'unknown kid': await thirdPartyToken(party, { key: { ...party, kid: 'nope' } }),
      'other audience': await thirdPartyToken(party, { audience: 'https://elsewhere.example.com' }),
      expired: await thirdPartyToken(party, { expiresIn: -120 }),
      'no exp': await thirdPartyToken(party, { omit: ['exp'] }),
      'no iat': await thirdPartyToken(party, { omit: ['iat'] }),
      'sub over 1024 bytes': await thirdPartyToken(party, { sub: 'x'.repeat(1025) }),
      'bad email claim': await thirdPartyToken(party, { claims: { email: 42 } }),
      'bad telephone claim': await thirdPartyToken(party, { claims: { telephone: '07700 900123' } }),
      'not a JWT': 'not-a-jwt',
    };
    for (const [why, token] of Object.entries(cases)) {
      const res = await t.api.get('/account', { token });
      assert.equal(res.status, 401, why);
      assert.equal(res.body.code, 401, why);
    }
    assert.equal((await t.api.get('/account', { token: await thirdPartyToken(party, { sub: 'x'.repeat(1024), audience: ['https://other.example', TEST_BASE_URL] }) })).status, 200);
  });

  it('accepts a token without kid when a key of the application fits', async () => {
    assert.equal((await t.api.get('/account', { token: await thirdPartyToken(party, { omit: ['kid'] }) })).status, 200);
  });

  it('stops accepting tokens of a removed key at once, even cached ones', async () => {
    const rotating = await createThirdParty(t.api, { owner: party.owner });
    const token = await thirdPartyToken(rotating);
    assert.equal((await t.api.get('/account', { token })).status, 200);
    const removed = await t.api.delete(`/platform/application/${rotating.applicationId}/auth/key/${rotating.kid}`, { token: rotating.owner.authToken });
    assert.equal(removed.status, 204);
    assert.equal((await t.api.get('/account', { token })).status, 401);
  });

  it('stops accepting tokens of a deleted application', async () => {
    const doomed = await createThirdParty(t.api, { owner: party.owner });
    const token = await thirdPartyToken(doomed);
    assert.equal((await t.api.get('/account', { token })).status, 200);
    assert.equal((await t.api.delete(`/platform/application/${doomed.applicationId}`, { token: doomed.owner.authToken })).status, 204);
    assert.equal((await t.api.get('/account', { token })).status, 401);
  });

  it('keeps application users out of /platform (403)', async () => {
    const token = await thirdPartyToken(party);
    assert.equal((await t.api.get('/platform/application', { token })).status, 403);
    assert.equal((await t.api.post('/platform/application', { token, body: applicationBody() })).status, 403);
    assert.equal((await t.api.get(`/platform/application/${party.applicationId}`, { token })).status, 403);
    assert.equal((await t.api.post(`/platform/application/${party.applicationId}/cors`, { token, body: { url: 'https://x.example' } })).status, 403);
  });

  it('keeps each application’s users apart', async () => {
    const sub = `shared-${randomUUID()}`;
    await t.api.get('/account', { token: await thirdPartyToken(party, { sub }) });
    await t.api.get('/account', { token: await thirdPartyToken(otherParty, { sub }) });
    const mine = (await usersOf(party.applicationId)).find((u) => u.external_id === sub);
    const theirs = (await usersOf(otherParty.applicationId)).find((u) => u.external_id === sub);
    assert.ok(mine && theirs);
    assert.notEqual(mine.id, theirs.id);
  });
});
