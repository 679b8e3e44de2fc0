import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService, TEST_SERVICE_OPTIONS } from '../helpers/service.js';
import { mosquittoInstalled, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { startService } from '../../src/server.js';
import { eventually } from '../helpers/wait.js';


describe('health and readiness probes', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(async () => {
    await t.close();
  });

  it('/healthz answers without a token', async () => {
    const res = await fetch(`${t.service.url}/healthz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });

  it('/readyz names each dependency it checked (no Redis configured: none checked)', async () => {
    const res = await fetch(`${t.service.url}/readyz`, { headers: { authorization: 'Bearer not-a-token' } });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ready', checks: { database: 'ok', broker: 'ok' } });
  });

  it('/readyz answers 503 naming the database once it cannot be reached', async () => {
    const other = await startService({ ...t.config, port: 0 }, TEST_SERVICE_OPTIONS);
    await other.ctx.db.close();
    try {
      const res = await fetch(`${other.url}/readyz`);
      assert.equal(res.status, 503);
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
      assert.deepEqual(await res.json(), { status: 'unavailable', checks: { database: 'failed', broker: 'ok' } });
    } finally {
      await other.close().catch(() => undefined);
    }
  });

  it('/readyz answers 503 naming the broker while an external broker is down, 200 once it is back', { skip: !mosquittoInstalled && 'mosquitto not installed' }, async () => {
    const user = { username: 'latchkey-service', password: 'probe-test-password' };
    const mosquitto: Mosquitto = await startMosquitto([user], user.username);
    const port = new URL(mosquitto.url).port;
    const brokerUrl = `mqtt://${user.username}:${user.password}@127.0.0.1:${port}`;
    const external = await startService({ ...t.config, port: 0, mqtt: { kind: 'external', url: brokerUrl } }, TEST_SERVICE_OPTIONS);
    try {
      assert.equal((await fetch(`${external.url}/readyz`)).status, 200);
      await mosquitto.stop();
      const down = await eventually(async () => {
        const res = await fetch(`${external.url}/readyz`);
        return res.status === 503 ? ((await res.json()) as unknown) : undefined;
      }, 'readyz 503', 10_000);
      assert.deepEqual(down, { status: 'unavailable', checks: { database: 'ok', broker: 'failed' } });
      await mosquitto.start(); // the same port: the service reconnects to the address it knows
      await eventually(async () => ((await fetch(`${external.url}/readyz`)).status === 200 ? true : undefined), 'readyz 200 again', 20_000);
    } finally {
      await external.close();
      await mosquitto.close();
    }
  });
});

