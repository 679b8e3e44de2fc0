import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cutOffDecommissionedLocks } from '../../src/lock-link/cut-off.js';
import { claimLock, createVerifiedUser } from '../helpers/locks.js';
import { redisServerInstalled, startPrivateRedis, type PrivateRedis } from '../helpers/redis-server.js';
import { startInstanceBeside, startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

/**
 * A lock decommissioned while the instances' bus is down (their Redis stopped by the test): the
 * announcement reaches no other instance (the bus delivers at most once), so each cuts the lock off
 * when the bus comes back, from the database (src/lock-link/cut-off.ts).
 */
describe('lock link: a lock decommissioned while the bus is down', { skip: !redisServerInstalled && 'redis-server not installed' }, () => {
  let redis: PrivateRedis;
  let t: TestService;
  before(async () => {
    redis = await startPrivateRedis();
    t = await startTestService({ REDIS_URL: redis.url });
  });
  after(async () => {
    await t?.close();
    await redis?.stop();
  });

  it('is cut off on the other instance once the bus is back', async () => {
    const owner = await createVerifiedUser(t);
    const lock = await claimLock(t, owner);
    const other = await startInstanceBeside(t);
    try {
      await eventually(() => other.service.ctx.bus.status().connected, 'the other instance on the bus');
      await redis.stop();
      await eventually(() => !other.service.ctx.bus.status().connected, 'the other instance off the bus');

      assert.equal((await t.api.post(`/device/${lock.id}/decommission`, { token: owner.authToken })).status, 204);
      assert.equal(t.service.ctx.link.isRetired(lock.id), true, 'cut off where it was served');
      assert.equal(other.service.ctx.link.isRetired(lock.id), false, 'the other instance did not hear of it');

      await redis.start();
      await eventually(() => other.service.ctx.link.isRetired(lock.id), 'cut off on the other instance once the bus is back', 20_000);
    } finally {
      await other.close();
    }
  });

  it('is cut off by the periodic look when its announcement was lost with the bus up', async () => {
    const owner = await createVerifiedUser(t);
    const lock = await claimLock(t, owner);
    // A second cut-off on this instance, looking every 50 ms; the lock is then decommissioned in
    // the database without an announcement, as when the publishing instance's publish failed.
    const stop = await cutOffDecommissionedLocks(t.service.ctx, 50);
    try {
      assert.equal(t.service.ctx.link.isRetired(lock.id), false);
      await t.service.ctx.db.kysely.updateTable('locks').set({ decommissioned_at: t.service.ctx.now() }).where('id', '=', lock.id).execute();
      await eventually(() => t.service.ctx.link.isRetired(lock.id), 'cut off by the periodic look');
    } finally {
      await stop();
    }
  });
});
