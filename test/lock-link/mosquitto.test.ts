import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { claimLock } from '../helpers/locks.js';
import { startTestService, type TestService, TEST_SERVICE_OPTIONS } from '../helpers/service.js';
import { mosquittoInstalled, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { connectTestLock } from '../helpers/test-lock.js';
import { eventually } from '../helpers/wait.js';
import { auditTypes, count } from './helpers.js';

/**
 * The service against an external broker: a private Mosquitto with the documented ACL. The
 * broker's password file needs the lock's secret, so the lock is provisioned (by a service on the
 * embedded broker) before Mosquitto starts; a second service on the same database, with MQTT_URL
 * pointing at Mosquitto, is the one under test.
 */
describe('lock link with an external Mosquitto', { skip: !mosquittoInstalled && 'mosquitto not installed' }, () => {
  let t: TestService;
  let mosquitto: Mosquitto | undefined;
  let brokerUrl: string;
  const service = { username: 'latchkey-service', password: randomBytes(18).toString('base64url') };

  before(async () => {
    t = await startTestService();
  });
  after(async () => {
    await t.close();
    await mosquitto?.close();
  });

  it('records presence and state reported through Mosquitto', async () => {
    const owner = await createUser(t.api);
    const claimed = await claimLock(t, owner);
    mosquitto = await startMosquitto([service, { username: claimed.id, password: claimed.secret }], service.username);
    brokerUrl = mosquitto.url.replace('mqtt://', `mqtt://${service.username}:${service.password}@`);
    const { startService } = await import('../../src/server.js');
    const external = await startService({ ...t.config, mqtt: { kind: 'external', url: brokerUrl } }, TEST_SERVICE_OPTIONS);
    try {
      assert.equal(external.ctx.broker, null);
      const lock = await connectTestLock({ url: mosquitto.url, id: claimed.id, secret: claimed.secret });
      await eventually(async () => (count(await auditTypes(t, claimed.id), 'DEVICE_CONNECTED') === 1 ? true : undefined), 'DEVICE_CONNECTED');
      await lock.client.publishAsync(`locks/${claimed.id}/state`, JSON.stringify({ locked: false, ts: 2 }), { qos: 1, retain: true });
      await eventually(async () => (count(await auditTypes(t, claimed.id), 'DOOR_UNLOCK') === 1 ? true : undefined), 'DOOR_UNLOCK');
      const row = await t.service.ctx.db.kysely.selectFrom('locks').select(['connected', 'locked']).where('id', '=', claimed.id).executeTakeFirstOrThrow();
      assert.deepEqual(row, { connected: 1, locked: 0 });
      await lock.powerCut();
      await eventually(async () => (count(await auditTypes(t, claimed.id), 'DEVICE_DISCONNECTED') === 1 ? true : undefined), 'DEVICE_DISCONNECTED');
    } finally {
      await external.close();
    }
  });
});
