import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { useService } from '../helpers/service.js';

/** Issue 27 point 11: a USER learns that a location rule applies, never where its centre is. */
describe("a lock's location rule as its members see it", () => {
  const t = useService();

  it('ADMINs see the centre; USERs see locationRequired only, in every lock shape', async () => {
    const admin = await createUser(t.api);
    const user = await createUser(t.api);
    const { id } = await claimLock(t, admin);
    await shareLock(t, id, admin, user.userId);
    const location = { latitude: 51.501364, longitude: -0.14189, radius: 50, accuracy: 100, enabled: true };
    const put = await t.api.put(`/device/${id}`, { token: admin.authToken, body: { settings: { usageRequirements: { location } } } });
    assert.equal(put.status, 204, put.text);

    const adminView = (await t.api.get(`/device/${id}`, { token: admin.authToken })).body.settings.usageRequirements;
    assert.equal(adminView.location.latitude, location.latitude);

    const shapes = [
      (await t.api.get(`/device/${id}`, { token: user.authToken })).body,
      (await t.api.get('/device', { token: user.authToken })).body.find((l: { id: string }) => l.id === id),
    ];
    for (const lock of shapes) {
      const requirements = lock.settings.usageRequirements;
      assert.equal(requirements.location, undefined, JSON.stringify(requirements));
      assert.equal(requirements.locationRequired, true);
      assert.ok(!JSON.stringify(lock).includes('51.501364'), 'no centre anywhere');
    }
  });
});
