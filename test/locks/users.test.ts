import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLegacyUser, createUser, type LegacyUser, type TestUser } from '../helpers/factories.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { UNKNOWN_ID } from './support.js';
import { EVERY_CAPABILITY } from '../helpers/sdk-models.js';

describe('lock users, user with locks, shareable and pinned locks', () => {
  let t: TestService;
  let admin: LegacyUser;
  let member: LegacyUser;
  let other: TestUser;
  before(async () => {
    t = await startTestService();
    [admin, member, other] = await Promise.all([createLegacyUser(t.api), createLegacyUser(t.api), createUser(t.api)]);
  });
  after(() => t.close());

  describe('GET /device/{id}/users', () => {
    it('lists every member field by field for an ADMIN', async () => {
      const { id } = await claimLock(t, admin);
      await shareLock(t, id, admin, member.userId, { start: 5, end: 4_000_000_000 });
      const res = await t.api.get(`/device/${id}/users`, { token: admin.authToken });
      assert.equal(res.status, 200);
      const byId = Object.fromEntries(res.body.map((u: { userId: string }) => [u.userId, u]));
      assert.deepEqual(Object.keys(byId).sort(), [admin.userId, member.userId].sort());
      assert.deepEqual(byId[admin.userId], { userId: admin.userId, email: admin.email, publicKey: admin.publicKey, displayName: admin.displayName, orphan: false, foreign: false, role: 'ADMIN', start: null, end: null, pending: false });
      assert.deepEqual(byId[member.userId], { userId: member.userId, email: member.email, publicKey: member.publicKey, displayName: member.displayName, orphan: false, foreign: false, role: 'USER', start: 5, end: 4_000_000_000, pending: false });
    });

    it('is 403 for a USER and 404 for a non-member', async () => {
      const { id } = await claimLock(t, admin);
      await shareLock(t, id, admin, member.userId);
      assert.equal((await t.api.get(`/device/${id}/users`, { token: member.authToken })).status, 403);
      assert.equal((await t.api.get(`/device/${id}/users`, { token: other.authToken })).status, 404);
      assert.equal((await t.api.get(`/device/${UNKNOWN_ID}/users`, { token: admin.authToken })).status, 404);
    });
  });

  describe('GET /user/{id}/', () => {
    it("shows the user with only the locks the caller administers", async () => {
      const user = await createLegacyUser(t.api);
      const administered = await claimLock(t, admin);
      const foreign = await claimLock(t, other);
      await shareLock(t, administered.id, admin, user.userId, { role: 'ADMIN' });
      await shareLock(t, foreign.id, other, user.userId);
      const res = await t.api.get(`/user/${user.userId}/`, { token: admin.authToken });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        userId: user.userId,
        email: user.email,
        publicKey: user.publicKey,
        displayName: user.displayName,
        orphan: false,
        foreign: false,
        devices: [{ deviceId: administered.id, role: 'ADMIN', start: null, end: null, pending: false }],
      });
    });

    it('is 404 when the caller administers none of their locks, or merely shares one with them', async () => {
      const user = await createUser(t.api);
      const { id } = await claimLock(t, admin);
      await shareLock(t, id, admin, user.userId);
      await shareLock(t, id, admin, member.userId);
      assert.equal((await t.api.get(`/user/${user.userId}`, { token: other.authToken })).status, 404);
      assert.equal((await t.api.get(`/user/${user.userId}`, { token: member.authToken })).status, 404);
      assert.equal((await t.api.get(`/user/${UNKNOWN_ID}`, { token: admin.authToken })).status, 404);
      assert.equal((await t.api.get('/user/bogus', { token: admin.authToken })).status, 404);
    });
  });

  describe('GET /device/shareable', () => {
    it('lists {id, name} of the locks the caller administers now', async () => {
      const sharer = await createUser(t.api);
      const own = await claimLock(t, sharer, { name: 'Own' });
      const asAdmin = await claimLock(t, admin, { name: 'Granted' });
      const asUser = await claimLock(t, admin, { name: 'Used only' });
      const lapsed = await claimLock(t, admin, { name: 'Lapsed' });
      await shareLock(t, asAdmin.id, admin, sharer.userId, { role: 'ADMIN' });
      await shareLock(t, asUser.id, admin, sharer.userId);
      await shareLock(t, lapsed.id, admin, sharer.userId, { role: 'ADMIN', end: 10 });
      await t.api.put(`/device/${asAdmin.id}`, { token: sharer.authToken, body: { name: 'My alias' } });
      const res = await t.api.get('/device/shareable', { token: sharer.authToken });
      assert.equal(res.status, 200);
      const sorted = [...res.body].sort((a, b) => a.id.localeCompare(b.id));
      assert.deepEqual(sorted, [{ id: own.id, name: 'Own' }, { id: asAdmin.id, name: 'My alias' }].sort((a, b) => a.id.localeCompare(b.id)));
    });
  });

  describe('GET /device/favourite', () => {
    it('lists the pinned locks in the site lock shape, tiles included', async () => {
      const pinner = await createUser(t.api);
      const pinned = await claimLock(t, pinner, { name: 'Pinned' });
      await claimLock(t, pinner, { name: 'Not pinned' });
      await t.api.put(`/device/${pinned.id}`, { token: pinner.authToken, body: { favourite: true } });
      const tile = '0190f0f0-0000-7000-8000-00000000f00d';
      assert.equal((await t.api.put(`/device/${pinned.id}/tile/${tile}`, { token: pinner.authToken })).status, 204);
      const res = await t.api.get('/device/favourite', { token: pinner.authToken });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, [
        {
          id: pinned.id,
          name: 'Pinned',
          colour: '#00283C',
          start: null,
          end: null,
          role: 'ADMIN',
          settings: { unlockTime: 5, permittedAddresses: [], defaultName: 'Pinned', usageRequirements: {}, unlockBetweenWindow: null, tiles: [tile], hidden: false, capabilities: EVERY_CAPABILITY, directAccessEndpoints: [] },
          state: { connected: false },
          favourite: true,
        },
      ]);
      assert.deepEqual((await t.api.get('/device/favourite', { token: other.authToken })).body, []);
    });
  });
});
