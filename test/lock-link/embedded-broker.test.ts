import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectAsync } from 'mqtt';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, shareLock, provisionLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { eventually, lockReportsRecorded } from '../helpers/wait.js';
import { auditTypes, count } from './helpers.js';

describe('lock link with the embedded broker', () => {
  let t: TestService;
  let url: string;
  let owner: TestUser;
  const open: TestLock[] = [];
  const connect = async (options: Parameters<typeof connectTestLock>[0]) => {
    const lock = await connectTestLock(options);
    open.push(lock);
    return lock;
  };

  before(async () => {
    t = await startTestService({ LOCK_REPLY_TIMEOUT_MS: '300' });
    const broker = t.service.ctx.broker;
    assert.ok(broker && broker.port > 0);
    url = `mqtt://127.0.0.1:${broker.port}`;
    owner = await createUser(t.api);
  });
  after(async () => {
    // Forced: a graceful end of a client the broker already dropped never completes.
    for (const lock of open) await lock.client.endAsync(true).catch(() => undefined);
    await t.close();
  });

  const config = (payload: Buffer) => JSON.parse(payload.toString()) as { version: number; users: Array<{ userId: string }> };

  it('refuses a wrong device secret', async () => {
    const lock = await claimLock(t, owner);
    await assert.rejects(connectAsync(url, { clientId: lock.id, username: lock.id, password: 'wrong', reconnectPeriod: 0, protocolVersion: 4 }));
  });

  it('records presence, state and door events once, and keeps the config retained', async () => {
    const claimed = await claimLock(t, owner);
    const lock = await connect({ url, id: claimed.id, secret: claimed.secret });

    const shown = await eventually(async () => {
      const res = await t.api.get(`/device/${claimed.id}`, { token: owner.authToken });
      return res.body.state?.connected === true && res.body.state?.locked !== undefined ? res.body : undefined;
    }, 'lock shown connected');
    assert.equal(shown.state.connected, true);
    assert.equal(shown.state.locked, true);
    const firstConfig = await eventually(async () => lock.configs[0], 'config delivered');
    assert.deepEqual(config(firstConfig).users.map((u) => u.userId), [owner.userId]);

    const topic = (kind: string) => `locks/${claimed.id}/${kind}`;
    await lock.client.publishAsync(topic('event'), JSON.stringify({ type: 'DOOR_OPEN', ts: 1 }), { qos: 1 });
    await lock.client.publishAsync(topic('state'), JSON.stringify({ locked: true, doorOpen: true, ts: 1 }), { qos: 1, retain: true });
    await eventually(async () => (count(await auditTypes(t, claimed.id), 'DOOR_OPEN') === 1 ? true : undefined), 'DOOR_OPEN');
    // The state report arrives first this time: audited from it, the event adds nothing.
    await lock.client.publishAsync(topic('state'), JSON.stringify({ locked: false, doorOpen: false, ts: 2 }), { qos: 1, retain: true });
    await lock.client.publishAsync(topic('event'), JSON.stringify({ type: 'DOOR_CLOSE', ts: 2 }), { qos: 1 });
    await eventually(async () => (count(await auditTypes(t, claimed.id), 'DOOR_UNLOCK') === 1 ? true : undefined), 'DOOR_UNLOCK');
    // The event came after the state report: once both are recorded, it has had its chance to add one.
    await lockReportsRecorded(t);
    let entries = await auditTypes(t, claimed.id);
    assert.equal(count(entries, 'DEVICE_CONNECTED'), 1);
    assert.equal(count(entries, 'DOOR_CLOSE'), 1);
    assert.equal(count(entries, 'DOOR_LOCK'), 0, 'the first state report is not a change');
    assert.equal(entries.find((e) => e.type === 'DOOR_UNLOCK')?.actor, null);

    // A share publishes a new config, retained.
    const guest = await createUser(t.api);
    await shareLock(t, claimed.id, owner, guest.userId);
    const shared = await eventually(async () => lock.configs.map(config).find((c) => c.users.length === 2), 'config after share');
    assert.ok(shared.version > config(firstConfig).version);

    // Power cut: the will says offline.
    await lock.powerCut();
    await eventually(async () => (count(await auditTypes(t, claimed.id), 'DEVICE_DISCONNECTED') === 1 ? true : undefined), 'DEVICE_DISCONNECTED');
    const offline = await t.api.get(`/device/${claimed.id}`, { token: owner.authToken });
    assert.equal(offline.body.state.connected, false);
    await assert.rejects(t.service.ctx.link.sendCommand(claimed.id, 'x.y.z', { type: 'MUTATE_LOCK', locked: false }), { status: 503 });

    // Reconnect: the retained config comes again at once; presence audited once more.
    const again = await connect({ url, id: claimed.id, secret: claimed.secret });
    const redelivered = await eventually(async () => again.configs[0], 'config redelivered');
    assert.equal(config(redelivered).users.length, 2);
    await eventually(async () => (count(await auditTypes(t, claimed.id), 'DEVICE_CONNECTED') === 2 ? true : undefined), 'reconnected');
    entries = await auditTypes(t, claimed.id);
    assert.equal(count(entries, 'DEVICE_DISCONNECTED'), 1);
  });

  it('shows what a lock of protocol 1.2 says it is, its battery, door, jam and tamper in its lock JSON', async () => {
    const claimed = await claimLock(t, owner);
    const lock = await connect({ url, id: claimed.id, secret: claimed.secret });
    const topic = (kind: string) => `locks/${claimed.id}/${kind}`;
    const device = { kind: 'zwave', capabilities: ['battery', 'doorSensor', 'laser', 'battery'] };
    await lock.client.publishAsync(topic('online'), JSON.stringify({ online: true, device }), { qos: 1, retain: true });
    await lock.client.publishAsync(topic('state'), JSON.stringify({ locked: true, doorOpen: true, ts: 1, battery: 80, jammed: false, tamper: true }), { qos: 1, retain: true });
    const shown = await eventually(async () => {
      const res = await t.api.get(`/device/${claimed.id}`, { token: owner.authToken });
      return res.body.device !== undefined && res.body.state?.battery !== undefined ? res.body : undefined;
    }, 'device and health shown');
    // Unknown capabilities are ignored; the known ones come in the protocol's order.
    assert.deepEqual(shown.device, { kind: 'zwave', capabilities: ['doorSensor', 'battery'] });
    assert.deepEqual(shown.state, { locked: true, connected: true, duration: 5, doorOpen: true, battery: 80, jammed: false, tamper: true });

    // A report that omits a field leaves it as it was.
    await lock.client.publishAsync(topic('state'), JSON.stringify({ locked: true, doorOpen: false, ts: 2, jammed: true }), { qos: 1, retain: true });
    const later = await eventually(async () => {
      const res = await t.api.get(`/device/${claimed.id}`, { token: owner.authToken });
      return res.body.state?.jammed === true ? res.body : undefined;
    }, 'jam shown');
    assert.deepEqual(later.state, { locked: true, connected: true, duration: 5, doorOpen: false, battery: 80, jammed: true, tamper: true });
  });

  it('publishes a config with no users for an unowned lock', async () => {
    const provisioned = await provisionLock(t);
    await t.service.ctx.bus.publish('lock-config', { lockId: provisioned.id });
    const lock = await connect({ url, id: provisioned.id, secret: provisioned.secret });
    const delivered = await eventually(async () => lock.configs[0], 'config');
    assert.deepEqual(config(delivered).users, []);
  });

  it('refuses a lock publishing under another lock', async () => {
    const victim = await claimLock(t, owner);
    const intruder = await claimLock(t, owner);
    const lock = await connect({ url, id: intruder.id, secret: intruder.secret });
    const closed = new Promise<void>((resolve) => lock.client.once('close', () => resolve()));
    lock.client.publish(`locks/${victim.id}/online`, '{"online":true}', { qos: 1, retain: true });
    await closed;
    // The broker refused the publish before routing it; whatever the link did take is recorded by now.
    await lockReportsRecorded(t);
    assert.equal(count(await auditTypes(t, victim.id), 'DEVICE_CONNECTED'), 0);
    assert.equal(t.service.ctx.link.isOnline(victim.id), false);
  });

  it('answers 504 for a lock that does not reply', async () => {
    const claimed = await claimLock(t, owner);
    await connect({ url, id: claimed.id, secret: claimed.secret, behaviour: { kind: 'silent' } });
    await eventually(async () => (t.service.ctx.link.isOnline(claimed.id) ? true : undefined), 'online');
    await assert.rejects(t.service.ctx.link.sendCommand(claimed.id, 'x.y.z', { type: 'MUTATE_LOCK', locked: false }), { status: 504 });
  });
});
