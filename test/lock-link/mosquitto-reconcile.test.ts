import assert from 'node:assert/strict';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../src/server.js';
import { runSimulator, type RunningSimulator } from '../../src/simulator/run-simulator.js';
import { certify, execute, signed, unlock, type Signer } from '../execute/support.js';
import { createUser } from '../helpers/factories.js';
import { Api } from '../helpers/http.js';
import { claimLock, shareLock, type ClaimedLock } from '../helpers/locks.js';
import { mosquittoInstalled, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { startTestService, type TestService, TEST_SERVICE_OPTIONS } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

/**
 * Reconciliation against a real Mosquitto run with docs/deployment/mosquitto-password.conf: the
 * lock's config reaches it whatever the broker forgot (a restart without persistence) or brought
 * back (an old snapshot), without restarting Latchkey. The lock is the simulator, which keeps its
 * config in memory only: a reboot forgets it, the worst case for the service.
 */
describe('reconciliation through Mosquitto', { skip: !mosquittoInstalled && 'mosquitto not installed' }, () => {
  const service = { username: 'latchkey-service', password: 'service-password-for-tests' };
  let t: TestService;
  let admin: Signer;

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never' });
    admin = await certify(t, await createUser(t.api));
  });
  after(async () => t?.close());

  /** An instance of the service on Mosquitto (same database), as a TestService for the helpers. */
  async function onMosquitto(mosquitto: Mosquitto): Promise<TestService & { running: RunningService }> {
    const url = mosquitto.url.replace('mqtt://', `mqtt://${service.username}:${service.password}@`);
    const running = await startService({ ...t.config, port: 0, mqtt: { kind: 'external', url } }, TEST_SERVICE_OPTIONS);
    return { ...t, api: new Api(running.url), service: running, running, close: () => running.close() };
  }

  function simulate(mosquitto: Mosquitto, lock: ClaimedLock): Promise<RunningSimulator> {
    return runSimulator({ id: lock.id, secret: lock.secret, mqttUrl: mosquitto.url, trustedRoot: t.service.ctx.pki.rootCertificate, stdin: new PassThrough(), stdout: new PassThrough() });
  }

  /** Unlocks until the lock says yes (200) or the time is up; returns the last status. */
  async function unlockUntilOk(ext: TestService, lockId: string): Promise<number> {
    let status = 0;
    await eventually(async () => {
      status = (await execute(ext, admin, lockId, signed(admin, lockId, unlock))).status;
      return status === 200;
    }, 'unlock 200', 15_000, 100).catch(() => undefined);
    return status;
  }

  it('a lock rebooting after the broker restarted without persistence gets its config back: unlock 200', async () => {
    const lock = await claimLock(t, admin);
    const mosquitto = await startMosquitto([service, { username: lock.id, password: lock.secret }], service.username);
    const ext = await onMosquitto(mosquitto);
    let simulator = await simulate(mosquitto, lock);
    try {
      assert.equal(await unlockUntilOk(ext, lock.id), 200);
      await mosquitto.stop();
      await simulator.close();
      await mosquitto.start(); // empty: no retained config, presence or state
      simulator = await simulate(mosquitto, lock); // the reboot: no config in memory
      assert.equal(await unlockUntilOk(ext, lock.id), 200, 'the lock got its config again without restarting Latchkey');
    } finally {
      await simulator.close();
      await ext.close();
      await mosquitto.close();
    }
  });

  it('a broker restored from an old snapshot: the lock ends with the latest config', async () => {
    const lock = await claimLock(t, admin);
    const mosquitto = await startMosquitto([service, { username: lock.id, password: lock.secret }], service.username, { persistence: true });
    const ext = await onMosquitto(mosquitto);
    let simulator = await simulate(mosquitto, lock);
    const database = join(mosquitto.dir, 'data', 'mosquitto.db');
    try {
      const first = await eventually(() => simulator.lock.configVersion ?? undefined, 'first config', 15_000);
      await mosquitto.stop(); // saves the snapshot with the first config retained
      await copyFile(database, `${database}.old`);
      await mosquitto.start();
      const member = await certify(t, await createUser(t.api));
      await shareLock(ext, lock.id, admin, member.userId);
      const latest = (await ext.running.ctx.db.kysely.selectFrom('locks').select('config_version').where('id', '=', lock.id).executeTakeFirstOrThrow()).config_version;
      assert.ok(latest > first);
      await eventually(() => (simulator.lock.configVersion === latest ? true : undefined), 'latest config applied', 15_000);

      await mosquitto.stop();
      await simulator.close();
      await copyFile(`${database}.old`, database); // the crash: an older saved state comes back
      await mosquitto.start();
      simulator = await simulate(mosquitto, lock);
      await eventually(() => (simulator.lock.configVersion === latest ? true : undefined), 'latest config after the restore', 15_000);
      // The config reaches the lock and its presence reaches the service on separate paths: wait for both.
      await eventually(async () => {
        const row = await ext.running.ctx.db.kysely.selectFrom('locks').select('connected').where('id', '=', lock.id).executeTakeFirstOrThrow();
        return row.connected === 1;
      }, 'the lock online again', 15_000);
      const res = await execute(ext, member, lock.id, signed(member, lock.id, unlock));
      assert.equal(res.status, 200, res.text);
    } finally {
      await simulator.close();
      await ext.close();
      await mosquitto.close();
    }
  });
});
