import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { probeBroker } from '../../src/lock-link/broker-check.js';
import { startService } from '../../src/server.js';
import { mosquittoInstalled, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { startTestService, type TestService, TEST_SERVICE_OPTIONS } from '../helpers/service.js';

/** Latchkey refuses to run on an external broker that is open to anyone (issue 16 item 4). */
describe('start-up against an open broker', { skip: !mosquittoInstalled && 'mosquitto not installed' }, () => {
  const service = { username: 'latchkey-service', password: 'service-password-for-tests' };
  let t: TestService;
  let open: Mosquitto;
  let closed: Mosquitto;
  const withService = (url: string) => url.replace('mqtt://', `mqtt://${service.username}:${service.password}@`);

  before(async () => {
    t = await startTestService();
    open = await startMosquitto([service], service.username, { anonymous: true });
    closed = await startMosquitto([service], service.username);
  });
  after(async () => {
    await open?.close();
    await closed?.close();
    await t?.close();
  });

  it('finds the documented configuration closed, and Mosquitto with allow_anonymous true open', async () => {
    assert.deepEqual(await probeBroker(withService(closed.url)), { anonymous: false, wrongPassword: false });
    assert.equal((await probeBroker(withService(open.url))).anonymous, true);
  });

  it('refuses to start on an anonymous broker, naming the setting', async () => {
    await assert.rejects(
      startService({ ...t.config, port: 0, mqtt: { kind: 'external', url: withService(open.url) } }, TEST_SERVICE_OPTIONS),
      (err: Error) => /allow_anonymous false/.test(`${err.message} ${String((err.cause as Error | undefined)?.message)}`) && /MQTT_ALLOW_INSECURE_BROKER/.test(`${err.message} ${String((err.cause as Error | undefined)?.message)}`),
    );
  });

  it('starts anyway with MQTT_ALLOW_INSECURE_BROKER=true, and on the documented configuration', async () => {
    const insecure = await startService({ ...t.config, port: 0, mqtt: { kind: 'external', url: withService(open.url) }, lockOps: { ...t.config.lockOps, allowInsecureBroker: true } }, TEST_SERVICE_OPTIONS);
    await insecure.close();
    const safe = await startService({ ...t.config, port: 0, mqtt: { kind: 'external', url: withService(closed.url) } }, TEST_SERVICE_OPTIONS);
    await safe.close();
  });
});
