import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, createSite, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * Insecure direct object references: an attacker with a valid account and someone else's ids
 * gets 404 from every lock, tile, site and user route, exactly as for ids that do not exist;
 * a USER gets 403 from every admin-only one.
 */
describe('access control on every lock route', () => {
  let t: TestService;
  let victim: TestUser;
  let guest: TestUser;
  let attacker: TestUser;
  let lockId: string;
  let siteId: string;
  const tileId = randomUUID();
  before(async () => {
    t = await startTestService();
    [victim, guest, attacker] = await Promise.all([createUser(t.api), createUser(t.api), createUser(t.api)]);
    siteId = (await createSite(t)).id;
    lockId = (await claimLock(t, victim, { name: 'Victim door', siteId })).id;
    await shareLock(t, lockId, victim, guest.userId);
    await t.api.put(`/device/${lockId}/tile/${tileId}`, { token: victim.authToken });
    await t.api.put(`/device/${lockId}`, { token: victim.authToken, body: { favourite: true } });
    await claimLock(t, attacker); // the attacker administers a lock of their own
  });
  after(() => t.close());

  const routes = (): Array<[string, string, unknown?]> => [
    ['GET', `/device/${lockId}`],
    ['PUT', `/device/${lockId}`, { favourite: true }],
    ['PUT', `/device/${lockId}`, { settings: { permittedAddresses: [] } }],
    ['GET', `/device/${lockId}/users`],
    ['PUT', `/device/${lockId}/tile/${randomUUID()}`],
    ['PUT', `/device/${lockId}/tile/${tileId}`],
    ['DELETE', `/device/${lockId}/tile/${tileId}`],
    ['GET', `/tile/${tileId}`],
    ['GET', `/user/${victim.userId}`],
    ['GET', `/user/${guest.userId}`],
    ['GET', `/site/${siteId}/device`],
    ['GET', `/site/${siteId}/user`],
  ];

  it("answers 404 to a non-member on every route with the victim's ids, like for unknown ids", async () => {
    for (const [method, path, body] of routes()) {
      const res = await t.api.request(method, path, { token: attacker.authToken, ...(body === undefined ? {} : { body }) });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.code, 404);
      const unknown = await t.api.request(method, path.replace(lockId, randomUUID()).replace(siteId, randomUUID()).replace(tileId, randomUUID()).replace(victim.userId, randomUUID()).replace(guest.userId, randomUUID()), {
        token: attacker.authToken,
        ...(body === undefined ? {} : { body }),
      });
      assert.equal(unknown.status, 404, `unknown ids: ${method} ${path}`);
      assert.equal(unknown.body.message.replace(/\w+ not found/, 'x not found'), res.body.message.replace(/\w+ not found/, 'x not found'));
    }
  });

  it("left the victim's lock as it was", async () => {
    const lock = (await t.api.get(`/device/${lockId}`, { token: victim.authToken })).body;
    assert.equal(lock.name, 'Victim door');
    assert.equal(lock.favourite, true);
    assert.equal((await t.api.get(`/tile/${tileId}`, { token: victim.authToken })).status, 303);
  });

  it('shows none of the victim\'s locks or sites in the attacker\'s lists', async () => {
    for (const path of ['/device', '/device/favourite', '/device/shareable', '/site']) {
      const res = await t.api.get(path, { token: attacker.authToken });
      assert.equal(res.status, 200);
      assert.ok(!res.text.includes(lockId) && !res.text.includes(siteId), path);
    }
  });

  it('answers 403 to a USER on every admin-only route, and 2xx on the member ones', async () => {
    const forbidden: Array<[string, string, unknown?]> = [
      ['PUT', `/device/${lockId}`, { settings: { defaultName: 'guest rules' } }],
      ['GET', `/device/${lockId}/users`],
      ['PUT', `/device/${lockId}/tile/${randomUUID()}`],
      ['DELETE', `/device/${lockId}/tile/${tileId}`],
    ];
    for (const [method, path, body] of forbidden) {
      const res = await t.api.request(method, path, { token: guest.authToken, ...(body === undefined ? {} : { body }) });
      assert.equal(res.status, 403, `${method} ${path}`);
    }
    assert.equal((await t.api.get(`/device/${lockId}`, { token: guest.authToken })).status, 200);
    assert.equal((await t.api.put(`/device/${lockId}`, { token: guest.authToken, body: { colour: '#010203' } })).status, 204);
    assert.equal((await t.api.get(`/tile/${tileId}`, { token: guest.authToken })).status, 303);
    assert.equal((await t.api.get(`/site/${siteId}/device`, { token: guest.authToken })).status, 200);
    // A USER sees nobody's details through /user/{id}.
    assert.equal((await t.api.get(`/user/${victim.userId}`, { token: guest.authToken })).status, 404);
  });
});
