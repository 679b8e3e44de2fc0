import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { assertError } from '../accounts/support.js';
import { claimLock, createSite, shareLock } from '../helpers/locks.js';
import { sdkRequest } from '../helpers/sdk-wire.js';
import { TEST_BASE_URL, startTestService, type TestService } from '../helpers/service.js';

describe('tiles', () => {
  let t: TestService;
  let admin: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let lockId: string;
  before(async () => {
    t = await startTestService();
    [admin, member, stranger] = await Promise.all([createUser(t.api), createUser(t.api), createUser(t.api)]);
    lockId = (await claimLock(t, admin)).id;
    await shareLock(t, lockId, admin, member.userId);
  });
  after(() => t.close());

  const link = (user: TestUser, tile: string, lock = lockId) => t.api.put(`/device/${lock}/tile/${tile}/`, { token: user.authToken });
  const unlink = (user: TestUser, tile: string, lock = lockId) => t.api.delete(`/device/${lock}/tile/${tile}/`, { token: user.authToken });
  const lookup = (user: TestUser, tile: string) => t.api.get(`/tile/${tile}/`, { token: user.authToken });

  it('links a new tile (creating it) and sends members to the lock with 303', async () => {
    const tile = randomUUID();
    const linked = await link(admin, tile);
    assert.equal(linked.status, 204);
    assert.equal(linked.text, '');
    for (const user of [admin, member]) {
      const res = await lookup(user, tile);
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), `${TEST_BASE_URL}/device/${lockId}`);
      assert.equal(res.text, '');
    }
    // Linking again to the same lock is a no-op.
    assert.equal((await link(admin, tile)).status, 204);
  });

  it('answers 404 for an unknown, unlinked or foreign tile alike', async () => {
    const tile = randomUUID();
    await link(admin, tile);
    for (const [user, id] of [[stranger, tile], [admin, randomUUID()], [admin, 'not-a-uuid']] as const) {
      const res = await lookup(user, id);
      assert.equal(res.status, 404);
      assert.equal(res.headers.get('location'), null);
    }
    await unlink(admin, tile);
    assert.equal((await lookup(admin, tile)).status, 404);
  });

  // The docs' request (associate-tile-with-lock), with the SDK's headers: the tile "must not be associated to any other locks".
  const linkAsSdk = (user: TestUser, tile: string, lock = lockId) => sdkRequest(t.api, 'PUT', `/device/${lock}/tile/${tile}/`, { token: user.authToken });
  /** PUT /tile/{id} (v2), the SDK's associateMultipleLocksRequest: the only way to make a multi-lock tile. */
  const linkMany = (user: TestUser, tile: string, siteId: string, devices: string[]) =>
    sdkRequest(t.api, 'PUT', `/tile/${tile}`, { token: user.authToken, version: 2, body: { siteId, devices } });

  it('refuses (409) a v1 link of a tile linked to another lock, until it is unlinked there', async () => {
    const tile = randomUUID();
    const otherLock = (await claimLock(t, admin)).id;
    assert.equal((await linkAsSdk(admin, tile, otherLock)).status, 204);
    const refused = await linkAsSdk(admin, tile);
    assertError(refused, 409);
    assert.equal(refused.body.error, 'tile_linked_elsewhere');
    assert.equal((await lookup(member, tile)).status, 404, 'the tile does not open lockId');
    assert.equal((await linkAsSdk(admin, tile, otherLock)).status, 204, 'linking again to the same lock changes nothing');
    // A lock the caller does not administer holds it just the same.
    const theirs = (await claimLock(t, stranger)).id;
    const theirTile = randomUUID();
    assert.equal((await linkAsSdk(stranger, theirTile, theirs)).status, 204);
    assertError(await linkAsSdk(admin, theirTile), 409);
    assert.equal(new URL((await lookup(stranger, theirTile)).headers.get('location')!).pathname, `/device/${theirs}`);

    assert.equal((await unlink(admin, tile, otherLock)).status, 204);
    assert.equal((await linkAsSdk(admin, tile)).status, 204);
    assert.equal(new URL((await lookup(member, tile)).headers.get('location')!).pathname, `/device/${lockId}`);
  });

  it('keeps a v2 multi-lock tile: v1 sends members to the oldest, refuses a v1 link elsewhere, unlinking one keeps the others', async () => {
    const tile = randomUUID();
    const siteId = (await createSite(t)).id;
    const [first, second] = [(await claimLock(t, admin, { siteId })).id, (await claimLock(t, admin, { siteId })).id];
    const db = t.service.ctx.db.kysely;
    await db.updateTable('locks').set({ created: 1_000 }).where('id', '=', first!).execute();
    assert.equal((await linkMany(admin, tile, siteId, [second!, first!])).status, 204);
    assert.equal(new URL((await lookup(admin, tile)).headers.get('location')!).pathname, `/device/${first}`);
    assert.equal((await linkAsSdk(admin, tile, first)).status, 204, 'already linked to this lock: nothing changes');
    assertError(await linkAsSdk(admin, tile), 409);
    assert.equal((await unlink(admin, tile, first)).status, 204);
    assert.equal((await unlink(admin, tile, first)).status, 404);
    assert.equal(new URL((await lookup(admin, tile)).headers.get('location')!).pathname, `/device/${second}`);
  });

  it('sends members to the oldest lock by creation, not by id (lock ids are random v4)', async () => {
    const tile = randomUUID();
    const siteId = (await createSite(t)).id;
    const [low, high] = [(await claimLock(t, admin, { siteId })).id, (await claimLock(t, admin, { siteId })).id].sort();
    // The lock with the higher id is the older one.
    const db = t.service.ctx.db.kysely;
    await db.updateTable('locks').set({ created: 1_000 }).where('id', '=', high!).execute();
    await db.updateTable('locks').set({ created: 2_000 }).where('id', '=', low!).execute();
    assert.equal((await linkMany(admin, tile, siteId, [low!, high!])).status, 204);
    assert.equal(new URL((await lookup(admin, tile)).headers.get('location')!).pathname, `/device/${high}`);
    assert.deepEqual((await t.api.get(`/tile/${tile}`, { token: admin.authToken, version: 2 })).body, { deviceId: high });
    assert.deepEqual((await t.api.get(`/tile/${tile}`, { token: admin.authToken, version: 3 })).body.deviceIds, [high, low]);
  });

  it('gives a new tile claimed by two locks at once to exactly one of them', async () => {
    const tile = randomUUID();
    const otherLock = (await claimLock(t, admin)).id;
    const results = await Promise.all([link(admin, tile), link(admin, tile, otherLock)]);
    assert.deepEqual(results.map((r) => r.status).sort(), [204, 409]);
    const v3 = await t.api.get(`/tile/${tile}`, { token: admin.authToken, version: 3 });
    assert.equal(v3.body.deviceIds.length, 1);
  });

  it('needs an ADMIN to link or unlink (403 for a USER, 404 for a non-member)', async () => {
    const tile = randomUUID();
    assert.equal((await link(member, tile)).status, 403);
    assert.equal((await link(stranger, tile)).status, 404);
    assert.equal((await lookup(admin, tile)).status, 404);
    await link(admin, tile);
    assert.equal((await unlink(member, tile)).status, 403);
    assert.equal((await unlink(stranger, tile)).status, 404);
    assert.equal((await lookup(member, tile)).status, 303);
  });

  it('answers 404 for malformed ids and unknown locks', async () => {
    assert.equal((await link(admin, 'tile-1')).status, 404);
    assert.equal((await link(admin, randomUUID(), 'lock-1')).status, 404);
    assert.equal((await link(admin, randomUUID(), randomUUID())).status, 404);
    assert.equal((await unlink(admin, randomUUID())).status, 404);
  });

  it('lists the tiles of each lock in the pinned locks', async () => {
    const tiles = [randomUUID(), randomUUID()].sort();
    const lock = (await claimLock(t, member)).id;
    for (const tile of tiles) await link(member, tile, lock);
    await t.api.put(`/device/${lock}`, { token: member.authToken, body: { favourite: true } });
    const pinned = (await t.api.get('/device/favourite', { token: member.authToken })).body;
    assert.deepEqual(pinned.find((l: { id: string }) => l.id === lock).settings.tiles, tiles);
  });
});
