import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../src/server.js';
import { runSimulator } from '../../src/simulator/run-simulator.js';
import { Api } from '../helpers/http.js';
import { auditEntriesOf, claimLock, createVerifiedUser } from '../helpers/locks.js';
import { mosquittoInstalled, startMosquitto } from '../helpers/mosquitto.js';
import { sdkExecute, sdkOperationToken } from '../helpers/sdk-wire.js';
import { startTestService, TEST_REDIS_URL, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { certify, type Signer } from './support.js';

/**
 * Issue 28 point 4 with several instances: two instances of the service on one database, one Redis
 * and one Mosquitto each hear the lock come online and each tries to deliver its queue; the claims
 * make every queued unlock reach the lock once, and the simulator (which checks each token at the
 * edge, its replay memory included) opens for each.
 */
describe('queued operations delivered by one of several instances', { skip: !mosquittoInstalled && 'mosquitto not installed' }, () => {
  const serviceUser = { username: 'latchkey-service', password: 'service-password-for-tests' };
  let t: TestService;
  let admin: Signer;

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never', REDIS_URL: TEST_REDIS_URL });
    admin = await certify(t, await createVerifiedUser(t));
  });
  after(async () => t?.close());

  it('each queued unlock is carried out once, whichever instance queued it', async () => {
    const lock = await claimLock(t, admin);
    const mosquitto = await startMosquitto([serviceUser, { username: lock.id, password: lock.secret }], serviceUser.username);
    const url = mosquitto.url.replace('mqtt://', `mqtt://${serviceUser.username}:${serviceUser.password}@`);
    const instances: RunningService[] = [];
    try {
      for (let i = 0; i < 2; i += 1) instances.push(await startService({ ...t.config, port: 0, mqtt: { kind: 'external', url } }));
      const now = Math.floor(Date.now() / 1000);
      const locations: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const token = sdkOperationToken(admin, lock.id, '{"type":"MUTATE_LOCK","locked":false,"duration":null}', { now, exp: now + 600 + i });
        const res = await sdkExecute(new Api(instances[i % 2]!.url), admin.authToken, lock.id, token);
        assert.equal(res.status, 202, res.text);
        locations.push(res.headers.get('location')!);
      }
      const simulator = await runSimulator({ id: lock.id, secret: lock.secret, mqttUrl: mosquitto.url, trustedRoot: t.service.ctx.pki.rootCertificate, stdin: new PassThrough(), stdout: new PassThrough() });
      try {
        const api = new Api(instances[0]!.url);
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
      await mosquitto.close();
    }
  });
});
