import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, createSite, shareLock } from '../helpers/locks.js';
import { assertMatchesModel, LockModel, SiteModel, SiteUserModel } from '../helpers/sdk-models.js';
import { sdkAccept } from '../helpers/sdk-wire.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** Issue 14, item 5 (and item 3's site users): SitesClient's requests, answers checked against the SDK's models. */
describe('sites, as the official SDK sees them', () => {
  let t: TestService;
  let admin: TestUser;
  let member: TestUser;
  let located: string;
  let bare: string;

  before(async () => {
    t = await startTestService();
    [admin, member] = await Promise.all([createUser(t.api), createUser(t.api)]);
    located = (await createSite(t, { name: 'Located', location: { latitude: 51.5, longitude: -0.12, radius: 42.4 } })).id;
    bare = (await createSite(t, { name: 'Bare' })).id;
    for (const siteId of [located, bare]) {
      const lock = await claimLock(t, admin, { siteId });
      await shareLock(t, lock.id, admin, member.userId);
    }
  });
  after(() => t?.close());

  it('lists sites with numeric latitude and longitude and an integer radius; 0, 0, 10 without a location', async () => {
    const res = await t.api.get('/site', { token: member.authToken, accept: sdkAccept() });
    assert.equal(res.status, 200);
    for (const site of res.body) assertMatchesModel(site, SiteModel, 'GET /site');
    const byId = Object.fromEntries(res.body.map((s: { id: string }) => [s.id, s]));
    assert.deepEqual([byId[bare].latitude, byId[bare].longitude, byId[bare].radius], [0, 0, 10]);
    assert.deepEqual([byId[located].latitude, byId[located].longitude, byId[located].radius], [51.5, -0.12, 42]);
  });

  it("lists a site's locks in the lock model and its users with foreign", async () => {
    const locks = await t.api.get(`/site/${bare}/device`, { token: member.authToken, accept: sdkAccept() });
    assert.equal(locks.status, 200);
    assert.equal(locks.body.length, 1);
    assertMatchesModel(locks.body[0], LockModel, 'GET /site/{id}/device');
    const users = await t.api.get(`/site/${bare}/user`, { token: admin.authToken, accept: sdkAccept() });
    assert.equal(users.status, 200);
    assert.equal(users.body.length, 2);
    for (const user of users.body) {
      assertMatchesModel(user, SiteUserModel, 'GET /site/{id}/user');
      assert.equal(user.foreign, false);
    }
  });
});
