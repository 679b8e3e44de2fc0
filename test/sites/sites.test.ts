import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, createSite, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { EVERY_CAPABILITY } from '../helpers/sdk-models.js';

describe('sites', () => {
  let t: TestService;
  let admin: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  before(async () => {
    t = await startTestService();
    [admin, member, stranger] = await Promise.all([createUser(t.api), createUser(t.api), createUser(t.api)]);
  });
  after(() => t.close());

  describe('GET /site/', () => {
    it('lists each site the caller has a lock on, once, field by field', async () => {
      const viewer = await createUser(t.api);
      const site = await createSite(t, { name: 'HQ', colour: '#123456', location: { latitude: 51.5, longitude: -0.12, radius: 150 } });
      const bare = await createSite(t, { name: 'Annex' });
      await createSite(t, { name: 'Elsewhere' });
      await claimLock(t, viewer, { siteId: site.id });
      await claimLock(t, viewer, { siteId: site.id });
      await claimLock(t, viewer);
      const shared = await claimLock(t, admin, { siteId: bare.id });
      await shareLock(t, shared.id, admin, viewer.userId);

      const res = await t.api.get('/site/', { token: viewer.authToken });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, [
        { id: bare.id, name: 'Annex', logoUrl: null, colour: '#00283C', longitude: 0, latitude: 0, radius: 10, created: bare.created, updated: bare.updated },
        { id: site.id, name: 'HQ', logoUrl: null, colour: '#123456', longitude: -0.12, latitude: 51.5, radius: 150, created: site.created, updated: site.updated },
      ]);
      assert.deepEqual((await t.api.get('/site', { token: stranger.authToken })).body, []);
    });
  });

  describe('GET /site/{id}/device/', () => {
    it("lists the caller's locks of the site in the site lock shape", async () => {
      const site = await createSite(t);
      const own = await claimLock(t, member, { name: 'Own', siteId: site.id });
      const shared = await claimLock(t, admin, { name: 'Shared', siteId: site.id });
      await claimLock(t, admin, { name: 'Hidden', siteId: site.id });
      await claimLock(t, member, { name: 'Outside' });
      await shareLock(t, shared.id, admin, member.userId, { end: 4_000_000_000 });
      const tile = randomUUID();
      await t.api.put(`/device/${own.id}/tile/${tile}`, { token: member.authToken });

      const res = await t.api.get(`/site/${site.id}/device/`, { token: member.authToken });
      assert.equal(res.status, 200);
      const byName = Object.fromEntries(res.body.map((l: { name: string }) => [l.name, l]));
      assert.deepEqual(Object.keys(byName).sort(), ['Own', 'Shared']);
      assert.deepEqual(byName.Own, {
        id: own.id,
        name: 'Own',
        colour: '#00283C',
        start: null,
        end: null,
        role: 'ADMIN',
        settings: { unlockTime: 5, permittedAddresses: [], defaultName: 'Own', usageRequirements: {}, unlockBetweenWindow: null, tiles: [tile], hidden: false, capabilities: EVERY_CAPABILITY, directAccessEndpoints: [] },
        state: { connected: false },
        favourite: false,
      });
      assert.equal(byName.Shared.role, 'USER');
      assert.equal(byName.Shared.end, 4_000_000_000);
      assert.deepEqual(byName.Shared.settings.tiles, []);
    });

    it('answers 404 for a site without a lock of the caller, an unknown site and a malformed id', async () => {
      const site = await createSite(t);
      await claimLock(t, admin, { siteId: site.id });
      for (const id of [site.id, randomUUID(), 'hq']) {
        assert.equal((await t.api.get(`/site/${id}/device`, { token: stranger.authToken })).status, 404, id);
      }
    });
  });

  describe('GET /site/{id}/user/', () => {
    it('lists the users of the site locks the caller administers, once each', async () => {
      const site = await createSite(t);
      const a = await createUser(t.api);
      const b = await createUser(t.api);
      const administered1 = await claimLock(t, admin, { siteId: site.id });
      const administered2 = await claimLock(t, admin, { siteId: site.id });
      const foreign = await claimLock(t, stranger, { siteId: site.id });
      const outside = await claimLock(t, admin);
      await shareLock(t, administered1.id, admin, a.userId);
      await shareLock(t, administered2.id, admin, a.userId);
      await shareLock(t, foreign.id, stranger, b.userId);
      await shareLock(t, outside.id, admin, b.userId);

      const res = await t.api.get(`/site/${site.id}/user/`, { token: admin.authToken });
      assert.equal(res.status, 200);
      const byId = Object.fromEntries(res.body.map((u: { userId: string }) => [u.userId, u]));
      assert.deepEqual(Object.keys(byId).sort(), [admin.userId, a.userId].sort());
      assert.deepEqual(byId[a.userId], { userId: a.userId, email: a.email, displayName: a.displayName, orphan: false, foreign: false });
      assert.equal(res.body.length, 2);
    });

    it('answers an empty list to a mere USER of the site and 404 to an outsider', async () => {
      const site = await createSite(t);
      const lock = await claimLock(t, admin, { siteId: site.id });
      await shareLock(t, lock.id, admin, member.userId);
      const asUser = await t.api.get(`/site/${site.id}/user`, { token: member.authToken });
      assert.equal(asUser.status, 200);
      assert.deepEqual(asUser.body, []);
      assert.equal((await t.api.get(`/site/${site.id}/user`, { token: stranger.authToken })).status, 404);
      assert.equal((await t.api.get(`/site/${randomUUID()}/user`, { token: admin.authToken })).status, 404);
    });
  });
});
