import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createLegacyUser, createUser, type LegacyUser, type TestUser } from '../helpers/factories.js';
import { claimLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { createThirdParty, thirdPartyToken, type ThirdParty } from '../applications/helpers.js';

interface AppUser {
  token: string;
  sub: string;
  email: string;
  telephone: string;
  id: string;
}

describe('directory queries', () => {
  let t: TestService;
  let direct: TestUser;
  let otherDirect: LegacyUser;
  let partyA: ThirdParty;
  let partyB: ThirdParty;
  let alice: AppUser;
  let bob: AppUser;
  let carol: AppUser;

  const appUser = async (party: ThirdParty): Promise<AppUser> => {
    const sub = `sub-${randomUUID()}`;
    const email = `${sub}@example.com`;
    const telephone = `+4477009${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}`;
    const token = await thirdPartyToken(party, { sub, claims: { email, email_verified: true, telephone, telephone_verified: true } });
    assert.equal((await t.api.get('/account', { token })).status, 200);
    const row = await t.service.ctx.db.kysely.selectFrom('users').select('id').where('namespace', '=', party.applicationId).where('external_id', '=', sub).executeTakeFirstOrThrow();
    return { token, sub, email, telephone, id: row.id };
  };
  const query = (token: string, body: unknown) => t.api.post('/directory/query', { token, body });

  before(async () => {
    t = await startTestService();
    direct = await createUser(t.api);
    // A direct caller looks people up only while administering a lock (issue 27 point 1).
    await claimLock(t, direct);
    otherDirect = await createLegacyUser(t.api);
    partyA = await createThirdParty(t.api, { owner: direct });
    partyB = await createThirdParty(t.api, { owner: direct });
    alice = await appUser(partyA);
    bob = await appUser(partyA);
    carol = await appUser(partyB);
  });
  after(() => t.close());

  it('finds a user of the caller’s application by each read-only key', async () => {
    const keys = [{ email: bob.email }, { email: bob.email.toUpperCase() }, { telephone: bob.telephone }, { localKey: bob.id }, { foreignKey: bob.sub }];
    let publicKey: string | undefined;
    for (const body of keys) {
      const res = await query(alice.token, body);
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(res.body.id, bob.id);
      assert.match(res.body.publicKey, /^MII[A-Za-z0-9+/=]+$/);
      publicKey ??= res.body.publicKey;
      assert.equal(res.body.publicKey, publicKey, 'the key is made once and kept');
    }
    assert.equal((await t.api.get('/account', { token: bob.token })).body.publicKey, publicKey);
  });

  it('never crosses applications or reaches direct users (404)', async () => {
    for (const body of [{ email: carol.email }, { telephone: carol.telephone }, { localKey: carol.id }, { foreignKey: carol.sub }, { email: direct.email }, { localKey: direct.userId }]) {
      const res = await query(alice.token, body);
      assert.equal(res.status, 404, JSON.stringify(body));
      assert.equal(res.body.code, 404);
    }
    assert.equal((await query(carol.token, { localKey: alice.id })).status, 404);
  });

  it('lets direct users query the direct namespace only', async () => {
    const res = await query(direct.authToken, { email: otherDirect.email });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { id: otherDirect.userId, publicKey: otherDirect.publicKey });
    assert.equal((await query(direct.authToken, { localKey: otherDirect.userId })).body.id, otherDirect.userId);
    for (const body of [{ email: alice.email }, { localKey: alice.id }, { foreignKey: alice.sub }, { telephone: alice.telephone }]) {
      assert.equal((await query(direct.authToken, body)).status, 404, JSON.stringify(body));
    }
  });

  it('answers 404 for unknown users', async () => {
    for (const body of [{ email: 'nobody@example.com' }, { telephone: '+15550000000' }, { localKey: randomUUID() }, { foreignKey: 'nobody' }]) {
      assert.equal((await query(alice.token, body)).status, 404, JSON.stringify(body));
    }
  });

  it('wants exactly one valid key (400)', async () => {
    const bad: unknown[] = [{}, { email: bob.email, foreignKey: bob.sub }, { email: bob.email, telephone: bob.telephone, localKey: bob.id }, { telephone: '07700900123' }, { localKey: 'not-a-uuid' }, { name: 'bob' }, { email: '' }, { foreignKey: 'x'.repeat(1025) }];
    for (const body of bad) {
      const res = await query(alice.token, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 400);
    }
  });

  it('needs authentication (401)', async () => {
    assert.equal((await t.api.post('/directory/query', { body: { email: bob.email } })).status, 401);
  });
});
