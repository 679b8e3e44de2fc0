import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mayAccess } from '../../src/lock-link/routes.js';
import { claimLock, createVerifiedUser, provisionLock } from '../helpers/locks.js';
import { mosquittoInstalled, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

const SECRET = 'broker-hook-secret-for-the-tests-0123';
const SERVICE = { username: 'latchkey-service', password: 'service-password-for-tests' };

/** The broker authentication hook over real HTTP, as EMQX and mosquitto-go-auth call it. */
describe('broker authentication hook', () => {
  let t: TestService;
  let off: TestService;
  let lock: { id: string; secret: string };
  let other: { id: string; secret: string };

  before(async () => {
    t = await startTestService({ MQTT_AUTH_HOOK_SECRET: SECRET });
    off = await startTestService();
    lock = await provisionLock(t);
    other = await provisionLock(t);
  });
  after(async () => {
    await t?.close();
    await off?.close();
  });

  const call = (service: TestService, path: string, body: object, secret: string | null = SECRET) =>
    fetch(`${service.service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(secret === null ? {} : { authorization: `Bearer ${secret}` }) },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json().catch(() => null)) as { result?: string; is_superuser?: boolean } | null }));

  it('does not exist without MQTT_AUTH_HOOK_SECRET, and refuses a call without the secret', async () => {
    assert.equal((await call(off, '/mqtt-auth/authenticate', { username: lock.id, password: lock.secret, clientid: lock.id })).status, 404);
    assert.equal((await call(t, '/mqtt-auth/authenticate', { username: lock.id, password: lock.secret, clientid: lock.id }, null)).status, 401);
    assert.equal((await call(t, '/mqtt-auth/authenticate', { username: lock.id, password: lock.secret, clientid: lock.id }, 'wrong-secret')).status, 401);
  });

  it('EMQX: allows a lock with its secret, denies a wrong secret, another client id and an unknown user', async () => {
    assert.deepEqual((await call(t, '/mqtt-auth/authenticate', { username: lock.id, password: lock.secret, clientid: lock.id })).body, { result: 'allow', is_superuser: false });
    assert.deepEqual((await call(t, '/mqtt-auth/authenticate', { username: lock.id, password: 'wrong', clientid: lock.id })).body, { result: 'deny' });
    assert.deepEqual((await call(t, '/mqtt-auth/authenticate', { username: lock.id, password: lock.secret, clientid: other.id })).body, { result: 'deny' });
    assert.deepEqual((await call(t, '/mqtt-auth/authenticate', { username: 'anyone', password: 'x', clientid: 'anyone' })).body, { result: 'deny' });
    assert.deepEqual((await call(t, '/mqtt-auth/authenticate', { clientid: 'anonymous' })).body, { result: 'deny' });
  });

  it('EMQX: authorises a lock on its own topics only', async () => {
    const may = async (action: string, topic: string) => (await call(t, '/mqtt-auth/authorize', { username: lock.id, clientid: lock.id, action, topic })).body?.result;
    assert.equal(await may('publish', `locks/${lock.id}/state`), 'allow');
    assert.equal(await may('subscribe', `locks/${lock.id}/command`), 'allow');
    assert.equal(await may('publish', `locks/${other.id}/state`), 'deny');
    assert.equal(await may('subscribe', `locks/${other.id}/command`), 'deny');
    assert.equal(await may('subscribe', 'locks/#'), 'deny');
    assert.equal(await may('publish', `locks/${lock.id}/command`), 'deny', 'a lock cannot send itself commands');
  });

  it('mosquitto-go-auth: 200 allows, 403 denies (user and ACL checks)', async () => {
    assert.equal((await call(t, '/mqtt-auth/go-auth/user', { username: other.id, password: other.secret, clientid: other.id })).status, 200);
    assert.equal((await call(t, '/mqtt-auth/go-auth/user', { username: other.id, password: 'nope', clientid: other.id })).status, 403);
    assert.equal((await call(t, '/mqtt-auth/go-auth/acl', { username: other.id, clientid: other.id, topic: `locks/${other.id}/config`, acc: 1 })).status, 200);
    assert.equal((await call(t, '/mqtt-auth/go-auth/acl', { username: other.id, clientid: other.id, topic: `locks/${lock.id}/config`, acc: 1 })).status, 403);
    assert.equal((await call(t, '/mqtt-auth/go-auth/superuser', { username: other.id })).status, 403);
  });

  it('denies a decommissioned lock every topic, its connection made before included', async () => {
    const owner = await createVerifiedUser(t);
    const claimed = await claimLock(t, owner);
    const acl = (topic: string, acc: number) => call(t, '/mqtt-auth/go-auth/acl', { username: claimed.id, clientid: claimed.id, topic, acc });
    assert.equal((await acl(`locks/${claimed.id}/state`, 2)).status, 200);
    assert.equal((await acl(`locks/${claimed.id}/command`, 1)).status, 200);
    assert.equal((await t.api.post(`/device/${claimed.id}/decommission`, { token: owner.authToken })).status, 204);
    await eventually(async () => (await acl(`locks/${claimed.id}/state`, 2)).status === 403, 'its publish denied');
    assert.equal((await acl(`locks/${claimed.id}/command`, 1)).status, 403, 'a delivery to it denied');
    assert.deepEqual((await call(t, '/mqtt-auth/authorize', { username: claimed.id, clientid: claimed.id, topic: `locks/${claimed.id}/online`, action: 'publish' })).body, { result: 'deny' });
    assert.deepEqual((await call(t, '/mqtt-auth/authenticate', { username: claimed.id, password: claimed.secret, clientid: claimed.id })).body, { result: 'deny' });
  });

  it('wrong secrets at one lock id never lock the real lock out: past ten, only the wrong answers slow down', async () => {
    const target = await provisionLock(t);
    for (let i = 0; i < 11; i++) {
      assert.deepEqual((await call(t, '/mqtt-auth/authenticate', { username: target.id, password: `guess-${i}`, clientid: target.id })).body, { result: 'deny' });
    }
    // A guesser (anyone who can reach the broker and knows a lock id) must not keep the lock offline.
    assert.deepEqual((await call(t, '/mqtt-auth/authenticate', { username: target.id, password: target.secret, clientid: target.id })).body, { result: 'allow', is_superuser: false });
    assert.equal((await call(t, '/mqtt-auth/go-auth/user', { username: target.id, password: target.secret, clientid: target.id })).status, 200);
    assert.equal((await call(t, '/mqtt-auth/go-auth/user', { username: target.id, password: 'still-wrong', clientid: target.id })).status, 403);
  });
});

describe('broker authentication hook: the service\'s own login', { skip: !mosquittoInstalled && 'mosquitto not installed' }, () => {
  let t: TestService;
  let mosquitto: Mosquitto;
  before(async () => {
    mosquitto = await startMosquitto([SERVICE], SERVICE.username);
    t = await startTestService({ MQTT_AUTH_HOOK_SECRET: SECRET, MQTT_URL: mosquitto.url.replace('mqtt://', `mqtt://${SERVICE.username}:${SERVICE.password}@`) });
  });
  after(async () => {
    await t?.close();
    await mosquitto?.close();
  });

  it('recognises MQTT_URL\'s user as the service: a superuser with its password only', async () => {
    const authenticate = (password: string) => fetch(`${t.service.url}/mqtt-auth/authenticate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` },
      body: JSON.stringify({ username: SERVICE.username, password, clientid: 'latchkey-service-x' }),
    }).then((res) => res.json());
    assert.deepEqual(await authenticate(SERVICE.password), { result: 'allow', is_superuser: true });
    assert.deepEqual(await authenticate('wrong'), { result: 'deny' });
    assert.equal(mayAccess({ kind: 'service' }, 'locks/x/command', 2, 'locks'), true);
    assert.equal(mayAccess({ kind: 'service' }, '$SYS/broker', 2, 'locks'), false);
  });
});
