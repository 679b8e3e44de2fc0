import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { EVERY_CAPABILITY } from '../helpers/sdk-models.js';

const officeHours = { time: [{ start: '08:00', end: '18:00', timezone: 'Europe/London', days: ['MONDAY', 'TUESDAY'] }], location: { latitude: 51.5, longitude: -0.1, enabled: true, radius: 50, accuracy: 20 } };

describe('PUT /device/{id}', () => {
  let t: TestService;
  let admin: TestUser;
  let member: TestUser;
  let lockId: string;
  before(async () => {
    t = await startTestService();
    [admin, member] = await Promise.all([createUser(t.api), createUser(t.api)]);
    lockId = (await claimLock(t, admin, { name: 'Office' })).id;
    await shareLock(t, lockId, admin, member.userId);
  });
  after(() => t.close());

  const get = async (user: TestUser) => (await t.api.get(`/device/${lockId}`, { token: user.authToken })).body;
  const put = (user: TestUser, body: unknown) => t.api.put(`/device/${lockId}`, { token: user.authToken, body });

  it("changes only the caller's own name, favourite and colour", async () => {
    const res = await put(member, { name: 'My office', favourite: true, colour: '#aa00ff' });
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    const mine = await get(member);
    assert.equal(mine.name, 'My office');
    assert.equal(mine.favourite, true);
    assert.equal(mine.colour, '#aa00ff');
    const theirs = await get(admin);
    assert.equal(theirs.name, 'Office');
    assert.equal(theirs.favourite, false);
    assert.equal(theirs.colour, '#00283C');
    assert.equal(mine.settings.defaultName, 'Office');

    assert.equal((await put(member, { name: null, colour: null })).status, 204);
    const cleared = await get(member);
    assert.equal(cleared.name, 'Office');
    assert.equal(cleared.colour, '#00283C');
    assert.equal(cleared.favourite, true);
  });

  it('lets an ADMIN change the settings, both spellings of the address list included', async () => {
    const res = await put(admin, {
      settings: { defaultName: 'Head office', permittedAddress: ['203.0.113.7', '2001:db8::/32'], usageRequirements: officeHours, txBeaconRssi: -40, rxBeaconRssi: -70, proximityUnlock: true, delay: 250 },
    });
    assert.equal(res.status, 204);
    const lock = await get(admin); // the location rule's centre is shown to ADMINs only (issue 27 point 11)
    assert.equal(lock.name, 'Head office');
    assert.deepEqual(lock.settings, {
      txBeaconRssi: -40,
      rxBeaconRssi: -70,
      unlockTime: 5,
      proximityUnlock: true,
      permittedAddresses: ['203.0.113.7', '2001:db8::/32'],
      defaultName: 'Head office',
      usageRequirements: officeHours,
      delay: 250,
      unlockBetweenWindow: null,
      tiles: [],
      hidden: false,
      capabilities: EVERY_CAPABILITY,
      directAccess: false,
      directAccessEndpoints: [],
    });

    assert.equal((await put(admin, { settings: { permittedAddresses: ['10.0.0.0/8'] } })).status, 204);
    assert.deepEqual((await get(admin)).settings.permittedAddresses, ['10.0.0.0/8']);
    assert.equal((await put(admin, { settings: { permittedAddress: ['10.0.0.0/8'], permittedAddresses: ['10.0.0.0/8'] } })).status, 204);
    assert.equal((await put(admin, { settings: { permittedAddresses: [], usageRequirements: null } })).status, 204);
    const cleared = (await get(admin)).settings;
    assert.deepEqual(cleared.permittedAddresses, []);
    assert.deepEqual(cleared.usageRequirements, {});
  });

  it('refuses settings from a USER with 403 and changes nothing, own fields included', async () => {
    const before = await get(member);
    const res = await put(member, { name: 'sneaky', settings: { defaultName: 'Mine now' } });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 403);
    const after = await get(member);
    assert.deepEqual(after, before);
  });

  it('refuses settings from an ADMIN whose access window has ended', async () => {
    const lapsed = await createUser(t.api);
    await shareLock(t, lockId, admin, lapsed.userId, { role: 'ADMIN', end: t.service.ctx.now() - 1 });
    assert.equal((await put(lapsed, { settings: { defaultName: 'x' } })).status, 403);
    assert.equal((await put(lapsed, { favourite: true })).status, 204);
  });

  it('rejects bad values with 400', async () => {
    const bad: unknown[] = [
      { colour: 'red' },
      { colour: '#12345' },
      { name: '' },
      { name: 'n'.repeat(256) },
      { favourite: 'maybe' },
      { settings: { permittedAddresses: ['not an address'] } },
      { settings: { permittedAddress: ['010.0.0.1'] } },
      { settings: { permittedAddresses: ['10.0.0.0/33'] } },
      { settings: { permittedAddress: ['10.0.0.1'], permittedAddresses: ['10.0.0.2'] } },
      { settings: { usageRequirements: { time: [{ start: '08:00', end: '18:00', timezone: 'Mars/Olympus', days: ['MONDAY'] }] } } },
      { settings: { usageRequirements: { time: [{ start: '8am', end: '18:00', timezone: 'UTC', days: ['MONDAY'] }] } } },
      { settings: { usageRequirements: { location: { latitude: 100, longitude: 0 } } } },
      { settings: { defaultName: '' } },
      { settings: { delay: -1 } },
    ];
    const before = await get(admin);
    for (const body of bad) {
      const res = await put(admin, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.code, 400);
    }
    assert.deepEqual(await get(admin), before);
  });

  it('answers 404 to a non-member whatever the body', async () => {
    const stranger = await createUser(t.api);
    assert.equal((await put(stranger, { favourite: true })).status, 404);
    assert.equal((await put(stranger, { settings: { defaultName: 'taken' } })).status, 404);
    assert.equal((await t.api.put('/device/nope', { token: stranger.authToken, body: { favourite: true } })).status, 404);
  });
});
