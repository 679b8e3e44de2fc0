import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { runSimulator } from '../../src/simulator/run-simulator.js';
import { startClusterBroker, useClusterTestService, type ClusterInstance } from '../helpers/cluster.js';
import { auditEntriesOf, claimLock } from '../helpers/locks.js';
import { mosquittoInstalled } from '../helpers/mosquitto.js';
import { sdkExecute, sdkOperationToken } from '../helpers/sdk-wire.js';
import { eventually } from '../helpers/wait.js';

/**
 * Issue 28 point 4 with several instances: two instances of the service on one database, one Redis
 * and one Mosquitto each hear the lock come online and each tries to deliver its queue; the claims
 * make every queued unlock reach the lock once, and the simulator (which checks each token at the
 * edge, its replay memory included) opens for each.
 */
describe('queued operations delivered by one of several instances', { skip: !mosquittoInstalled && 'mosquitto not installed' }, () => {
  const cluster = useClusterTestService();

  it('each queued unlock is carried out once, whichever instance queued it', async () => {
    const { t, admin } = cluster;
    const lock = await claimLock(t, admin);
    const broker = await startClusterBroker(t, [lock]);
    const instances: ClusterInstance[] = [];
    try {
      for (let i = 0; i < 2; i += 1) instances.push(await broker.startInstance());
      const now = Math.floor(Date.now() / 1000);
      const locations: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const token = sdkOperationToken(admin, lock.id, '{"type":"MUTATE_LOCK","locked":false,"duration":null}', { now, exp: now + 600 + i });
        const res = await sdkExecute(instances[i % 2]!.api, admin.authToken, lock.id, token);
        assert.equal(res.status, 202, res.text);
        locations.push(res.headers.get('location')!);
      }
      const simulator = await runSimulator({ id: lock.id, secret: lock.secret, mqttUrl: broker.mosquitto.url, trustedRoot: t.service.ctx.pki.rootCertificate, stdin: new PassThrough(), stdout: new PassThrough() });
      try {
        const api = instances[0]!.api;
        await eventually(async () => {
          const statuses = await Promise.all(locations.map(async (location) => (await api.get(location, { token: admin.authToken })).body.status as string));
          return statuses.every((s) => s === 'DELIVERED' || s === 'REFUSED') ? statuses : undefined;
        }, 'every queued unlock settled', 15_000).then((statuses) => assert.deepEqual(statuses, ['DELIVERED', 'DELIVERED', 'DELIVERED', 'DELIVERED']));
        const unlocks = (await auditEntriesOf(t, lock.id)).filter((e) => e.type === 'DOOR_UNLOCK');
        assert.equal(unlocks.length, 4, JSON.stringify(unlocks));
        assert.ok(unlocks.every((e) => e.rejected === 0 && e.actor_user_id === admin.userId));
      } finally {
        await simulator.close();
      }
    } finally {
      for (const instance of instances) await instance.close();
      await broker.close();
    }
  });
});
