import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startClusterBroker, useClusterTestService, type ClusterInstance } from '../helpers/cluster.js';
import { auditEntriesOf, claimLock } from '../helpers/locks.js';
import { mosquittoInstalled } from '../helpers/mosquitto.js';
import { sdkExecute, sdkOperationToken } from '../helpers/sdk-wire.js';
import { startInstanceBeside } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

/**
 * The queue's sweep with an external broker down for every instance (src/operations/queue-delivery.ts):
 * nothing can be delivered, and no instance takes the delivery's turn, but expiry needs no broker
 * and has a turn of its own, so a queued operation still expires on time, its refusal audited
 * (review: it waited for the broker to come back).
 */
describe('queued operations expiring while the broker is down', { skip: !mosquittoInstalled && 'mosquitto not installed' }, () => {
  const cluster = useClusterTestService();

  it('expire and are audited as refused with every instance off the broker', async () => {
    const { t, admin } = cluster;
    const lock = await claimLock(t, admin);
    const broker = await startClusterBroker(t, [lock]);
    const instances: ClusterInstance[] = [];
    try {
      const everySecond = { mqtt: { kind: 'external' as const, url: broker.serviceUrl }, lockOps: { ...t.config.lockOps, queueSweepSeconds: 1 } };
      for (let i = 0; i < 2; i += 1) instances.push(await startInstanceBeside(t, everySecond));
      await eventually(() => instances.every((instance) => instance.service.ctx.link.brokerStatus().connected), 'both instances on the broker');
      // The lock is offline: the unlock is queued (for more than a minute, or it is refused at once).
      const now = Math.floor(Date.now() / 1000);
      const token = sdkOperationToken(admin, lock.id, '{"type":"MUTATE_LOCK","locked":false,"duration":null}', { now, exp: now + 120 });
      const res = await sdkExecute(instances[0]!.api, admin.authToken, lock.id, token);
      assert.equal(res.status, 202, res.text);

      await broker.mosquitto.stop();
      await eventually(() => instances.every((instance) => !instance.service.ctx.link.brokerStatus().connected), 'both instances off the broker');
      // Its time runs out (moved in the row: the services' clock is the system's).
      await t.service.ctx.db.kysely.updateTable('queued_operations').set({ expires_at: now - 1 }).where('lock_id', '=', lock.id).execute();
      const state = () => t.service.ctx.db.kysely.selectFrom('queued_operations').select('state').where('lock_id', '=', lock.id).executeTakeFirstOrThrow();
      await eventually(async () => (await state()).state === 'EXPIRED', 'the queued unlock expired with the broker down', 15_000);
      const refused = (await auditEntriesOf(t, lock.id)).filter((e) => e.type === 'DOOR_UNLOCK' && e.rejected === 1);
      assert.equal(refused.length, 1, 'its refusal audited once');
    } finally {
      for (const instance of instances) await instance.close();
      await broker.close();
    }
  });
});
