import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { newId } from '../../src/crypto/random.js';
import { createLegacyUser, createUser, uniqueEmail } from '../helpers/factories.js';
import { claimLock, createSite } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';

/** The legacy JavaScript SDK's test before it looks a user up by id (common/services/deviceOperation.js). */
const LEGACY_SDK_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** How the legacy SDK posts (axios): its default Accept, a JSON body, the bearer token. */
const legacyLookup = (t: ReturnType<typeof useService>, token: string, id: string) =>
  t.api.post('/directory/query', {
    rawBody: JSON.stringify({ localKey: id }),
    contentType: 'application/json',
    headers: { accept: 'application/json, text/plain, */*', authorization: `Bearer ${token}` },
  });

describe('identifiers: new user, lock and site ids are UUID version 4', () => {
  const t = useService({ withUser: true });
  // A direct caller looks people up only while administering a lock, and finds those who have a
  // public key (issue 27 point 1).
  before(() => claimLock(t, t.user));

  it('a registered user, an invitee, a lock and a site get v4 ids', async () => {
    const user = await createUser(t.api);
    assert.match(user.userId, UUID_V4);
    const v3 = await t.api.post('/auth/register', { version: 3, body: { email: uniqueEmail('v3'), password: 'correct horse battery' } });
    assert.match(decodeJwt(v3.body.authToken).sub!, UUID_V4);
    const lock = await claimLock(t, user);
    assert.match(lock.id, UUID_V4);
    // Only a lock's admin may invite (so the lock comes first).
    const invitee = await t.api.post(`/share/invite/${encodeURIComponent(uniqueEmail('invitee'))}`, { token: user.authToken });
    assert.equal(invitee.status, 200, invitee.text);
    assert.match(invitee.body.id, UUID_V4);
    const site = await createSite(t);
    assert.match(site.id, UUID_V4);
  });

  it("the legacy JavaScript SDK's look-up of a user by id succeeds", async () => {
    const other = await createLegacyUser(t.api);
    assert.match(other.userId, LEGACY_SDK_UUID, 'the legacy SDK would not even send the request');
    const res = await legacyLookup(t, t.user.authToken, other.userId);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.id, other.userId);
    assert.equal(typeof res.body.publicKey, 'string');
  });

  it('an existing version 7 id keeps working', async () => {
    const db = t.service.ctx.db.kysely;
    const id = newId();
    assert.equal(id[14], '7');
    const legacy = await createLegacyUser(t.api);
    const row = await db.selectFrom('users').selectAll().where('id', '=', legacy.userId).executeTakeFirstOrThrow();
    const email = uniqueEmail('old');
    await db.insertInto('users').values({ ...row, id, email, email_normalised: email.toLowerCase() }).execute();
    const res = await legacyLookup(t, t.user.authToken, id);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.id, id);
  });

  it('locks are still listed oldest first, though their ids are random', async () => {
    const owner = await createUser(t.api);
    const claimed = [];
    for (let i = 0; i < 4; i++) claimed.push((await claimLock(t, owner)).id);
    const list = await t.api.get('/device', { token: owner.authToken });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.map((lock: { id: string }) => lock.id), claimed);
  });
});
