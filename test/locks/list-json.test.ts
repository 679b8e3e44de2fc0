import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import build from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
import { LockResponse } from '../../src/locks/schemas.js';
import { storeDevice, storeDoorOpen, storeHealth, storeLocked, storePresences } from '../../src/locks/state.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, createSite, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * GET /device writes its JSON in SQL (src/locks/list-json.ts); GET /device/{id} presents and
 * serialises each lock with the response schema, both from the lock's one description
 * (src/locks/lock-json.ts). The list must be byte for byte the single answers joined, whatever
 * the stored values look like, and what its declared schema would write of it, unchanged.
 */
describe('GET /device, the JSON the database writes', () => {
  let t: TestService;
  let owner: TestUser;
  let guest: TestUser;
  before(async () => {
    t = await startTestService();
    [owner, guest] = await Promise.all([createUser(t.api), createUser(t.api)]);
  });
  after(() => t.close());

  const setLock = (id: string, values: Record<string, unknown>) => t.service.ctx.db.kysely.updateTable('locks').set(values).where('id', '=', id).execute();
  const setMember = (id: string, userId: string, values: Record<string, unknown>) =>
    t.service.ctx.db.kysely.updateTable('lock_members').set(values).where('lock_id', '=', id).where('user_id', '=', userId).execute();

  const serialiseList = build(Type.Array(LockResponse));

  /** The list's text must be `[` + each lock's GET /device/{id} text, joined by `,` + `]`, and what the declared schema writes of it. */
  async function assertListMatchesSingles(user: TestUser, count: number): Promise<void> {
    const list = await t.api.get('/device', { token: user.authToken });
    assert.equal(list.status, 200);
    assert.match(list.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
    assert.equal(list.body.length, count);
    assert.equal(serialiseList(JSON.parse(list.text)), list.text, 'the declared schema, applied, would change nothing');
    const singles: string[] = [];
    for (const lock of list.body as Array<{ id: string }>) {
      const one = await t.api.get(`/device/${lock.id}`, { token: user.authToken });
      assert.equal(one.status, 200);
      singles.push(one.text);
    }
    assert.equal(list.text, `[${singles.join(',')}]`);
  }

  it('answers every kind of stored lock exactly as GET /device/{id} does', async () => {
    const site = await createSite(t, { colour: '#112233' });
    const fresh = await claimLock(t, owner, { name: 'Fresh' });
    const shared = await claimLock(t, owner, { name: 'Shared "quoted" \\ door', siteId: site.id });
    const busy = await claimLock(t, owner, { name: 'Busy' });
    const plain = await claimLock(t, owner, { name: 'Plain' });
    await shareLock(t, shared.id, owner, guest.userId, { role: 'USER', start: 1_000.25, end: 4_000_000_000 });
    await shareLock(t, busy.id, owner, guest.userId, { role: 'ADMIN' });
    await shareLock(t, plain.id, owner, guest.userId, { role: 'USER', start: 1_700_000_000.1234567, end: null });

    // The guest's own preferences: an alias with characters JSON escapes, a colour, pinned, hidden.
    await setMember(shared.id, guest.userId, { alias: 'Mine "é" \n\t\u0001 ☃ \\ </script>', colour: '#ABCDEF', favourite: 1, hidden: 1 });
    // Settings as stored by hand or by older versions: keys out of the schema's order, defaults left out, fractions.
    await setLock(busy.id, {
      permitted_addresses: '["203.0.113.0/24","2001:db8::/32"]',
      usage_requirements: JSON.stringify({
        location: { longitude: -0.1276, latitude: 51.5072, accuracy: 12.6 },
        time: [{ days: ['MONDAY', 'FRIDAY'], timezone: 'Europe/London', end: '18:00', start: '08:00' }],
      }),
      unlock_between: JSON.stringify({ start: '07:00', end: '19:00', timezone: 'Europe/Paris', days: ['SATURDAY'], exceptions: ['2030-01-01'] }),
      unlock_time: 12,
      delay: 250,
      tx_beacon_rssi: -40,
      rx_beacon_rssi: 7,
      proximity_unlock: 1,
      default_name: null,
    });
    await setLock(plain.id, { usage_requirements: JSON.stringify({ location: { latitude: 0, longitude: 0, enabled: false, radius: 0.2 } }), unlock_between: '{"start":"01:00","end":"02:00","timezone":"UTC","days":["MONDAY"]}' });
    const { db } = t.service.ctx;
    await storePresences(db.kysely, [{ lockId: busy.id, online: true }], 1_700_000_000);
    await storeLocked(db.kysely, db.dialect, busy.id, true, 1_700_000_000.1234567);
    await storeLocked(db.kysely, db.dialect, plain.id, false, 1_700_000_000);
    // What a lock of device protocol 1.2 reports: its kind and capabilities, battery, door, jam, tamper.
    await storeDevice(db, busy.id, 'zwave', ['keypad', 'doorSensor', 'battery', 'jamDetection']);
    await storeHealth(db.kysely, busy.id, { battery: 7, jammed: true, tamper: false });
    await storeDoorOpen(db.kysely, busy.id, true, 1_700_000_000);
    await storeDevice(db, plain.id, 'matter', []);
    await storeHealth(db.kysely, plain.id, { battery: 100 });
    for (const tileId of [randomUUID(), randomUUID(), randomUUID()]) {
      assert.equal((await t.api.put(`/device/${busy.id}/tile/${tileId}`, { token: owner.authToken })).status, 204);
    }

    await assertListMatchesSingles(owner, 4);
    await assertListMatchesSingles(guest, 3);
    const guestList = (await t.api.get('/device', { token: guest.authToken })).body as Array<{ id: string; name: string; settings: { tiles: string[] } }>;
    assert.deepEqual(guestList.map((l) => l.id), [shared.id, busy.id, plain.id], 'oldest lock first');
    assert.equal(guestList[0]!.name, 'Mine "é" \n\t\u0001 ☃ \\ </script>');
    assert.equal(guestList[1]!.settings.tiles.length, 3);
    assert.ok(!guestList.some((l) => l.id === fresh.id));
  });

  it('shows a change made through another route at once', async () => {
    const user = await createUser(t.api);
    const { id } = await claimLock(t, user, { name: 'Before' });
    const put = await t.api.put(`/device/${id}`, { token: user.authToken, body: { name: 'After', favourite: true, settings: { permittedAddresses: ['198.51.100.7'] } } });
    assert.equal(put.status, 204, put.text);
    const [lock] = (await t.api.get('/device', { token: user.authToken })).body;
    assert.equal(lock.name, 'After');
    assert.equal(lock.favourite, true);
    assert.deepEqual(lock.settings.permittedAddresses, ['198.51.100.7']);
    await assertListMatchesSingles(user, 1);
  });

  it('fails closed on a stored setting that is not what it should be', async () => {
    const user = await createUser(t.api);
    const { id } = await claimLock(t, user);
    await setLock(id, { usage_requirements: '[1,2]' });
    assert.equal((await t.api.get('/device', { token: user.authToken })).status, 500);
  });
});
