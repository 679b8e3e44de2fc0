import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { claimLock, createVerifiedUser } from '../helpers/locks.js';
import { mosquittoInstalled, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { startInstanceBeside, startTestService, TEST_REDIS_URL, type TestService } from '../helpers/service.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { eventually } from '../helpers/wait.js';
import { auditTypes, count } from './helpers.js';

/**
 * A decommissioned lock is cut off (docs/decisions.md): the embedded broker closes its connection
 * and refuses the next; with an external broker, which keeps the connection, no instance hears it
 * or sends it anything, told on the bus when another instance served the decommissioning, and
 * after a restart too.
 */
describe('lock link: a decommissioned lock cut off', () => {
  let t: TestService;
  let mosquitto: Mosquitto | undefined;
  const locks: TestLock[] = [];
  const serviceUser = { username: 'latchkey-service', password: 'service-password-for-tests' };

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never', REDIS_URL: TEST_REDIS_URL });
  });
  after(async () => {
    for (const lock of locks) await lock.close().catch(() => undefined);
    await t?.close();
    await mosquitto?.close();
  });

  const decommission = (user: { authToken: string }, lockId: string) => t.api.post(`/device/${lockId}/decommission`, { token: user.authToken });
  const lockRow = (lockId: string) => t.service.ctx.db.kysely.selectFrom('locks').select(['connected', 'locked']).where('id', '=', lockId).executeTakeFirstOrThrow();
  const offline = (err: unknown) => (err as { error?: string }).error === 'lock_offline';

  it('on the embedded broker: its connection closed after its last config, its next login refused, no command sent to it', async () => {
    const owner = await createVerifiedUser(t);
    const claimed = await claimLock(t, owner);
    const url = `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`;
    const lock = await connectTestLock({ url, id: claimed.id, secret: claimed.secret });
    locks.push(lock);
    await eventually(async () => t.service.ctx.link.isOnline(claimed.id) && (await lockRow(claimed.id)).connected === 1, 'the lock online');

    const res = await decommission(owner, claimed.id);
    assert.equal(res.status, 204, res.text);
    await eventually(() => !lock.client.connected, 'the broker closed the lock\'s connection');
    const last = JSON.parse(lock.configs.at(-1)!.toString()) as { users: unknown[] };
    assert.deepEqual(last.users, [], 'told it has no users before the cut');
    await eventually(async () => (await lockRow(claimed.id)).connected === 0 && count(await auditTypes(t, claimed.id), 'DEVICE_DISCONNECTED') === 1, 'recorded disconnected, once');
    await assert.rejects(connectTestLock({ url, id: claimed.id, secret: claimed.secret }), 'its next login refused');
    await assert.rejects(t.service.ctx.link.sendCommand(claimed.id, 'a token', { type: 'MUTATE_LOCK', locked: false }), offline);
    assert.equal(lock.commands.length, 0);
  });

  it('with an external broker and another instance: its reports are not recorded nor commands sent, after a restart either', { skip: !mosquittoInstalled && 'mosquitto not installed' }, async () => {
    const owner = await createVerifiedUser(t);
    const retired = await claimLock(t, owner);
    const other = await claimLock(t, owner);
    mosquitto = await startMosquitto([serviceUser, { username: retired.id, password: retired.secret }, { username: other.id, password: other.secret }], serviceUser.username);
    const url = mosquitto.url.replace('mqtt://', `mqtt://${serviceUser.username}:${serviceUser.password}@`);
    let instance = await startInstanceBeside(t, { mqtt: { kind: 'external', url } });
    try {
      const lock = await connectTestLock({ url: mosquitto.url, id: retired.id, secret: retired.secret });
      const marker = await connectTestLock({ url: mosquitto.url, id: other.id, secret: other.secret });
      locks.push(lock, marker);
      await eventually(() => instance.service.ctx.link.isOnline(retired.id) && instance.service.ctx.link.isOnline(other.id), 'both locks online');
      await eventually(async () => (await lockRow(retired.id)).locked === 1 && (await lockRow(other.id)).locked === 1, 'their first states recorded');

      // Served by the instance on the embedded broker; the one holding the subscription hears it on the bus.
      assert.equal((await decommission(owner, retired.id)).status, 204);
      await eventually(() => instance.service.ctx.link.isRetired(retired.id), 'the other instance cut it off');
      await eventually(async () => (await lockRow(retired.id)).connected === 0, 'recorded disconnected');
      assert.ok(lock.client.connected, 'Mosquitto keeps the connection (docs/decisions.md: the operator cuts it)');
      await assert.rejects(instance.service.ctx.link.sendCommand(retired.id, 'a token', { type: 'MUTATE_LOCK', locked: false }), offline);

      // Its report, then another lock's through the same broker and subscription: once the second is
      // recorded, the first was heard before it, and dropped.
      await lock.client.publishAsync(`locks/${retired.id}/state`, JSON.stringify({ locked: false, ts: Date.now() / 1000 }), { qos: 1, retain: true });
      await marker.client.publishAsync(`locks/${other.id}/state`, JSON.stringify({ locked: false, ts: Date.now() / 1000 }), { qos: 1, retain: true });
      await eventually(async () => (await lockRow(other.id)).locked === 0, 'the other lock\'s report recorded');
      assert.equal((await lockRow(retired.id)).locked, 1);
      assert.equal(count(await auditTypes(t, retired.id), 'DOOR_UNLOCK'), 0);

      // A new instance hears the retained report, published before it listened, and records it not.
      await instance.close();
      instance = await startInstanceBeside(t, { mqtt: { kind: 'external', url } });
      await marker.client.publishAsync(`locks/${other.id}/state`, JSON.stringify({ locked: true, ts: Date.now() / 1000 }), { qos: 1, retain: true });
      await eventually(async () => (await lockRow(other.id)).locked === 1, 'the other lock\'s next report recorded');
      assert.equal(instance.service.ctx.link.isOnline(retired.id), false);
      assert.equal((await lockRow(retired.id)).locked, 1);
      assert.equal(count(await auditTypes(t, retired.id), 'DOOR_UNLOCK'), 0);
      assert.equal(lock.commands.length, 0, 'no command ever reached it');
    } finally {
      await instance.close();
    }
  });
});
