import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { claimLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { eventually, lockReportsRecorded } from '../helpers/wait.js';
import { auditTypes, count } from './helpers.js';

describe('a lock that reports too fast', () => {
  let t: TestService;
  let device: TestLock | undefined;
  before(async () => {
    t = await startTestService({ RATE_REPORTS_PER_LOCK: '6' });
  });
  after(async () => {
    await device?.client.endAsync(true).catch(() => undefined);
    await t.close();
  });

  it('fills its trail only up to its limit: the rest of its events are dropped', async () => {
    const owner = await createUser(t.api);
    const lock = await claimLock(t, owner);
    device = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: lock.id, secret: lock.secret });
    await eventually(async () => (count(await auditTypes(t, lock.id), 'DEVICE_CONNECTED') === 1 ? true : undefined), 'connected');
    // Its online and state announcements used two of its six; 40 door events follow at once.
    for (let i = 0; i < 40; i++) {
      await device.client.publishAsync(`locks/${lock.id}/event`, JSON.stringify({ type: i % 2 ? 'DOOR_CLOSE' : 'DOOR_OPEN', ts: Date.now() / 1000 }), { qos: 1 });
    }
    await eventually(async () => (count(await auditTypes(t, lock.id), 'DOOR_CLOSE') >= 1 ? true : undefined), 'door events recorded');
    // Every event was acknowledged by the broker, hence taken by the link: none is still on its way.
    await lockReportsRecorded(t);
    const entries = await auditTypes(t, lock.id);
    assert.equal(count(entries, 'DOOR_OPEN') + count(entries, 'DOOR_CLOSE'), 4);
  });
});
