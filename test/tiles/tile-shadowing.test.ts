import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { claimLock, createSite, shareLock } from '../helpers/locks.js';
import { sdkAccept } from '../helpers/sdk-wire.js';
import { useService } from '../helpers/service.js';

/**
 * Issue 27 point 4: a stranger links the id printed on someone else's tile to their own older lock,
 * shares that lock with the tile's users, and their tile look-ups lead to the stranger's door.
 */
describe("a stranger's lock on someone else's tile", () => {
  const t = useService();

  it('is refused on the v2 and v1 routes, and every look-up still leads to the tile’s own door', async () => {
    const [owner, member, stranger] = await Promise.all([createUser(t.api), createUser(t.api), createUser(t.api)]);
    const ownSite = (await createSite(t)).id;
    const door = (await claimLock(t, owner, { siteId: ownSite })).id;
    await shareLock(t, door, owner, member.userId);
    const tileId = randomUUID();
    assert.equal((await t.api.put(`/device/${door}/tile/${tileId}`, { token: owner.authToken })).status, 204);

    // The stranger's lock is older, and the member is on it too.
    const strangerSite = (await createSite(t)).id;
    const trap = (await claimLock(t, stranger, { siteId: strangerSite })).id;
    await t.service.ctx.db.kysely.updateTable('locks').set({ created: 1_000 }).where('id', '=', trap).execute();
    await shareLock(t, trap, stranger, member.userId);

    const v2 = await t.api.put(`/tile/${tileId}`, { token: stranger.authToken, accept: sdkAccept(2), body: { siteId: strangerSite, devices: [trap] } });
    assert.equal(v2.status, 409, v2.text);
    assert.equal((await t.api.put(`/device/${trap}/tile/${tileId}`, { token: stranger.authToken })).status, 409);

    const v1 = await t.api.get(`/tile/${tileId}`, { token: member.authToken, accept: 'application/json' });
    assert.equal(v1.status, 303);
    assert.match(v1.headers.get('location') ?? '', new RegExp(`/device/${door}$`));
    assert.deepEqual((await t.api.get(`/tile/${tileId}`, { token: member.authToken, accept: sdkAccept(2) })).body, { deviceId: door });
    assert.deepEqual((await t.api.get(`/tile/${tileId}`, { token: member.authToken, accept: sdkAccept(3) })).body.deviceIds, [door]);
  });
});
