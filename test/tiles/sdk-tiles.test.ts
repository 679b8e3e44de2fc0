import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, createSite, shareLock } from '../helpers/locks.js';
import { assertMatchesModel, TileLocksModel } from '../helpers/sdk-models.js';
import { sdkAccept } from '../helpers/sdk-wire.js';
import { TEST_BASE_URL, startTestService, type TestService } from '../helpers/service.js';

/** Issue 14, item 9: TilesClient's requests byte for byte, answers checked against BasicTileLocksResponse. */
describe('tiles, as the official SDK sees them', () => {
  let t: TestService;
  let admin: TestUser;
  let member: TestUser;
  let other: TestUser;
  let siteId: string;
  let lockA: string;
  let lockB: string;

  before(async () => {
    t = await startTestService();
    [admin, member, other] = await Promise.all([createUser(t.api), createUser(t.api), createUser(t.api)]);
    siteId = (await createSite(t)).id;
    lockA = (await claimLock(t, admin, { siteId })).id;
    lockB = (await claimLock(t, admin, { siteId })).id;
    // lockA is the older one, whatever their (random) ids.
    await t.service.ctx.db.kysely.updateTable('locks').set({ created: 1_000 }).where('id', '=', lockA).execute();
    await shareLock(t, lockA, admin, member.userId);
  });
  after(() => t?.close());

  /** associateMultipleLocksRequest: PUT, v2, JSON body {siteId, devices}. */
  const associate = (user: TestUser, tileId: string, devices: string[], site = siteId) =>
    t.api.put(`/tile/${tileId}`, { token: user.authToken, accept: sdkAccept(2), rawBody: `{"siteId":"${site}","devices":[${devices.map((d) => `"${d}"`).join(',')}]}` });
  /** getLocksBelongingToTileRequest: GET, v3, no Content-Type. */
  const locksOf = (user: TestUser, tileId: string, version?: 2 | 3) => t.api.get(`/tile/${tileId}`, { token: user.authToken, accept: sdkAccept(version) });

  it('associates several locks, answers v3 with all of them, v2 and v1 with the oldest', async () => {
    const tileId = randomUUID();
    const res = await associate(admin, tileId, [lockB, lockA]);
    assert.equal(res.status, 204, res.text);
    const v3 = await locksOf(admin, tileId, 3);
    assert.equal(v3.status, 200);
    assertMatchesModel(v3.body, TileLocksModel, 'GET /tile/{id} v3');
    assert.deepEqual(v3.body, { siteId, tileId, deviceIds: [lockA, lockB] });
    const oldest = lockA;
    assert.deepEqual((await locksOf(admin, tileId, 2)).body, { deviceId: oldest });
    const v1 = await locksOf(admin, tileId);
    assert.equal(v1.status, 303);
    assert.equal(v1.headers.get('location'), `${TEST_BASE_URL}/device/${oldest}`);
    // A member of only one of the locks sees only that one.
    assert.deepEqual((await locksOf(member, tileId, 3)).body, { siteId, tileId, deviceIds: [lockA] });
    assert.equal((await locksOf(other, tileId, 3)).status, 404);
    // The lock list shows the tile on both.
    const locks = (await t.api.get('/device', { token: admin.authToken })).body;
    for (const lock of locks.filter((l: { id: string }) => l.id === lockA || l.id === lockB)) assert.ok(lock.settings.tiles.includes(tileId));
  });

  it('replaces the set, and an empty list unlinks them all (then the tile is 404)', async () => {
    const tileId = randomUUID();
    assert.equal((await associate(admin, tileId, [lockA, lockB])).status, 204);
    assert.equal((await associate(admin, tileId, [lockB])).status, 204);
    assert.deepEqual((await locksOf(admin, tileId, 3)).body.deviceIds, [lockB]);
    assert.equal((await associate(admin, tileId, [])).status, 204);
    for (const version of [undefined, 2, 3] as const) assert.equal((await locksOf(admin, tileId, version)).status, 404);
  });

  it('needs the caller to administer every lock named, all in the site', async () => {
    const tileId = randomUUID();
    assert.equal((await associate(member, tileId, [lockA])).status, 403);
    assert.equal((await associate(other, tileId, [lockA])).status, 404);
    const elsewhere = (await claimLock(t, admin)).id;
    const outside = await associate(admin, tileId, [lockA, elsewhere]);
    assert.equal(outside.status, 400);
    assert.match(outside.body.message, /not in site/);
    assert.equal((await associate(admin, tileId, ['not-a-lock'])).status, 404);
    assert.equal((await locksOf(admin, tileId, 3)).status, 404, 'nothing was linked');
    assert.equal((await locksOf(admin, randomUUID(), 3)).status, 404);
  });

  it('shows the routes and shapes in the OpenAPI document', async () => {
    const doc = (await t.api.get('/openapi.json')).body;
    const tile = doc.paths['/tile/{tileId}'];
    assert.ok(tile.put, 'PUT /tile/{id}');
    assert.deepEqual(Object.keys(tile.put.requestBody.content['application/json'].schema.properties).sort(), ['devices', 'siteId']);
    assert.match(JSON.stringify(tile.get.responses['200']), /deviceIds/);
  });

  // Issue 27 point 4: another administrator's tile is refused (409), not joined: it used to take
  // the link, which let a stranger's lock shadow the tile's own for members of both.
  it("leaves other administrators' links alone: their tile is 409 to anyone else", async () => {
    const theirSite = (await createSite(t)).id;
    const theirLock = (await claimLock(t, other, { siteId: theirSite })).id;
    const tileId = randomUUID();
    assert.equal((await associate(other, tileId, [theirLock], theirSite)).status, 204);
    const refused = await associate(admin, tileId, [lockA]);
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error, 'tile_linked_elsewhere');
    assert.equal((await associate(admin, tileId, [])).status, 204);
    assert.deepEqual((await locksOf(other, tileId, 3)).body, { siteId: theirSite, tileId, deviceIds: [theirLock] });
  });
});
