import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeLocked, storePresences } from '../../src/locks/state.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, createSite, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { UNKNOWN_ID } from './support.js';
import { EVERY_CAPABILITY } from '../helpers/sdk-models.js';

const LOCK_KEYS = ['colour', 'end', 'favourite', 'id', 'lastOperation', 'name', 'role', 'settings', 'start', 'state', 'unlockForever', 'unlockTime'];
const SETTINGS_KEYS = ['capabilities', 'defaultName', 'delay', 'directAccess', 'directAccessEndpoints', 'hidden', 'permittedAddresses', 'proximityUnlock', 'rxBeaconRssi', 'tiles', 'txBeaconRssi', 'unlockBetweenWindow', 'unlockTime', 'usageRequirements'];

describe('GET /device and GET /device/{id}', () => {
  let t: TestService;
  let owner: TestUser;
  let guest: TestUser;
  let stranger: TestUser;
  before(async () => {
    t = await startTestService();
    [owner, guest, stranger] = await Promise.all([createUser(t.api), createUser(t.api), createUser(t.api)]);
  });
  after(() => t.close());

  it('answers a fresh lock field by field', async () => {
    const { id } = await claimLock(t, owner, { name: 'Shape door' });
    const res = await t.api.get(`/device/${id}`, { token: owner.authToken });
    assert.equal(res.status, 200);
    const lock = res.body;
    assert.deepEqual(Object.keys(lock).sort(), LOCK_KEYS);
    assert.deepEqual(Object.keys(lock.settings).sort(), SETTINGS_KEYS);
    assert.equal(lock.id, id);
    assert.equal(lock.name, 'Shape door');
    assert.equal(lock.role, 'ADMIN');
    assert.equal(lock.colour, '#00283C');
    assert.equal(lock.favourite, false);
    assert.equal(lock.unlockTime, 5);
    assert.equal(lock.unlockForever, false);
    assert.equal(lock.start, null);
    assert.equal(lock.end, null);
    assert.equal(typeof lock.lastOperation, 'number');
    assert.deepEqual(lock.settings, {
      txBeaconRssi: 0,
      rxBeaconRssi: 0,
      unlockTime: 5,
      proximityUnlock: false,
      permittedAddresses: [],
      defaultName: 'Shape door',
      usageRequirements: {},
      delay: 0,
      unlockBetweenWindow: null,
      tiles: [],
      hidden: false,
      capabilities: EVERY_CAPABILITY,
      directAccess: false,
      directAccessEndpoints: [],
    });
    // Never reported: `locked` is absent, not false.
    assert.deepEqual(lock.state, { connected: false, duration: 5 });
  });

  it('shows the state the lock reported and its last operation', async () => {
    const { id } = await claimLock(t, owner);
    const { db, now } = t.service.ctx;
    await storePresences(db.kysely, [{ lockId: id, online: true }], now());
    await storeLocked(db.kysely, db.dialect, id, false, 1_700_000_000.5);
    const lock = (await t.api.get(`/device/${id}`, { token: owner.authToken })).body;
    assert.deepEqual(lock.state, { locked: false, connected: true, duration: 5 });
    assert.equal(lock.lastOperation, 1_700_000_000.5);
  });

  it("shows a USER their own role, window and the site's colour", async () => {
    const site = await createSite(t, { colour: '#112233' });
    const { id } = await claimLock(t, owner, { name: 'Shared door', siteId: site.id });
    await shareLock(t, id, owner, guest.userId, { role: 'USER', start: 1_000, end: 4_000_000_000 });
    const lock = (await t.api.get(`/device/${id}`, { token: guest.authToken })).body;
    assert.equal(lock.role, 'USER');
    assert.equal(lock.start, 1_000);
    assert.equal(lock.end, 4_000_000_000);
    assert.equal(lock.name, 'Shared door');
    assert.equal(lock.colour, '#112233');
  });

  it('lists exactly the locks the caller is enrolled on, each in the full shape', async () => {
    const lister = await createUser(t.api);
    const mine = await claimLock(t, lister, { name: 'Mine' });
    const theirs = await claimLock(t, owner, { name: 'Theirs' });
    await claimLock(t, owner, { name: 'Not shared' });
    await shareLock(t, theirs.id, owner, lister.userId);
    const res = await t.api.get('/device', { token: lister.authToken });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.map((l: { id: string }) => l.id).sort(), [mine.id, theirs.id].sort());
    for (const lock of res.body) {
      assert.deepEqual(Object.keys(lock).sort(), LOCK_KEYS);
      assert.deepEqual(Object.keys(lock.settings).sort(), SETTINGS_KEYS);
    }
    const byId = Object.fromEntries(res.body.map((l: { id: string; role: string }) => [l.id, l.role]));
    assert.deepEqual(byId, { [mine.id]: 'ADMIN', [theirs.id]: 'USER' });
  });

  it('answers an empty list to a user without locks', async () => {
    const res = await t.api.get('/device', { token: stranger.authToken });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, []);
  });

  it('answers 404 for a lock the caller is not enrolled on, an unknown one and a malformed id alike', async () => {
    const { id } = await claimLock(t, owner);
    for (const path of [`/device/${id}`, `/device/${UNKNOWN_ID}`, '/device/not-a-uuid', `/device/${id}x`]) {
      const res = await t.api.get(path, { token: stranger.authToken });
      assert.equal(res.status, 404, path);
      assert.deepEqual(Object.keys(res.body).sort(), ['code', 'error', 'message']);
      assert.equal(res.body.code, 404);
    }
  });

  it('accepts the lock id in upper case', async () => {
    const { id } = await claimLock(t, owner);
    const res = await t.api.get(`/device/${id.toUpperCase()}`, { token: owner.authToken });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, id);
  });

  it('answers with and without a trailing slash and needs a token', async () => {
    const { id } = await claimLock(t, owner);
    assert.equal((await t.api.get(`/device/${id}/`, { token: owner.authToken })).status, 200);
    assert.equal((await t.api.get('/device/', { token: owner.authToken })).status, 200);
    assert.equal((await t.api.get('/device')).status, 401);
    assert.equal((await t.api.get(`/device/${id}`)).status, 401);
  });
});
