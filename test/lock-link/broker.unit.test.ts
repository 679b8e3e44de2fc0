import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import pino from 'pino';
import { startLockBroker } from '../../src/lock-link/broker.js';
import type { LockLink } from '../../src/lock-link/client.js';
import { createLockLink, recordingHandlers, startTestBroker, type TestBroker } from '../helpers/mqtt.js';
import { eventually } from '../helpers/wait.js';
import { connectTestLock } from '../helpers/test-lock.js';

const silent = pino({ level: 'silent' });

function connectAs(url: string, clientId: string, username: string, password: string) {
  return connectAsync(url, { clientId, username, password, protocolVersion: 4, reconnectPeriod: 0 }, false);
}

describe('embedded broker: authentication', () => {
  let broker: TestBroker;
  before(async () => { broker = await startTestBroker(); });
  after(() => broker.close());

  it('accepts a lock with its secret and refuses a wrong one', async () => {
    const lock = broker.addLock();
    const good = await connectAs(broker.url, lock.id, lock.id, lock.secret);
    assert.equal(good.connected, true);
    await good.endAsync();
    await assert.rejects(connectAs(broker.url, lock.id, lock.id, `${lock.secret}x`), /Bad username or password/);
  });

  it('refuses a lock whose client id is not its own id', async () => {
    const lock = broker.addLock();
    await assert.rejects(connectAs(broker.url, randomUUID(), lock.id, lock.secret), /Identifier rejected/);
  });

  it('refuses an unknown lock, no credentials, and a wrong service password', async () => {
    await assert.rejects(connectAs(broker.url, 'ghost', 'ghost', 'x'), /Bad username or password/);
    await assert.rejects(connectAsync(broker.url, { clientId: 'anon', protocolVersion: 4, reconnectPeriod: 0 }, false), /Bad username or password/);
    await assert.rejects(connectAs(broker.url, 'svc', broker.service.username, 'wrong'), /Bad username or password/);
  });

  it('accepts the service with any client id', async () => {
    const service = await connectAs(broker.url, 'anything', broker.service.username, broker.service.password);
    assert.equal(service.connected, true);
    await service.endAsync();
  });
});

describe('embedded broker: a lock is confined to its own topics', () => {
  let broker: TestBroker;
  let link: LockLink;
  const recorder = recordingHandlers();
  before(async () => {
    broker = await startTestBroker();
    // The service's side as in production: the broker's own API.
    link = await createLockLink({ broker: broker.broker.local, replyTimeoutMs: 1000, logger: silent, handlers: recorder.handlers });
  });
  after(async () => { await link.close(); await broker.close(); });

  it('drops a publish under another lock\'s prefix, and the service never sees it', async () => {
    const victim = broker.addLock();
    const attacker = broker.addLock();
    const lock = await connectTestLock({ url: broker.url, ...attacker });
    await recorder.until((seen) => seen.presence.some((p) => p.lockId === attacker.id && p.online));
    lock.client.publish(`locks/${victim.id}/state`, JSON.stringify({ locked: false, ts: 1 }), { qos: 1, retain: true });
    lock.client.publish(`locks/${victim.id}/online`, '{"online":true}', { qos: 1, retain: true });
    // aedes disconnects a client whose publish is refused; the will that follows is our sentinel.
    await recorder.until((seen) => seen.presence.some((p) => p.lockId === attacker.id && !p.online));
    assert.equal(recorder.seen.states.some((s) => s.lockId === victim.id), false);
    assert.equal(recorder.seen.presence.some((p) => p.lockId === victim.id), false);
    assert.equal(link.isOnline(victim.id), false);
    await lock.client.endAsync(true);
  });

  it('negates subscriptions outside the lock\'s own command and config topics', async () => {
    const own = broker.addLock();
    const other = broker.addLock();
    const client = await connectAs(broker.url, own.id, own.id, own.secret);
    const granted = await client.subscribeAsync([`locks/${own.id}/command`, `locks/${own.id}/config`], { qos: 1 });
    assert.deepEqual(granted.map((g) => g.qos), [1, 1]);
    for (const topic of [`locks/${own.id}/state`, `locks/${other.id}/config`, 'locks/+/config', 'locks/#', '#']) {
      // mqtt.js turns a SUBACK of 0x80 (negated grant) into a rejection carrying the packet.
      await assert.rejects(client.subscribeAsync(topic, { qos: 1 }), (err: { packet?: { granted?: number[] } }) => err.packet?.granted?.[0] === 128, topic);
    }
    assert.equal(client.connected, true);
    await client.endAsync();
  });

  it('does not publish a will aimed at another lock', async () => {
    const victim = broker.addLock();
    const attacker = broker.addLock();
    // A will on the victim's presence topic would mark it offline (or online) when we drop.
    const client = await connectAsync(broker.url, {
      clientId: attacker.id, username: attacker.id, password: attacker.secret, protocolVersion: 4, reconnectPeriod: 0,
      will: { topic: `locks/${victim.id}/online`, payload: Buffer.from('{"online":true}'), qos: 1, retain: true },
    }, false);
    const sentinel = await connectTestLock({ url: broker.url, ...broker.addLock() });
    client.stream.destroy();
    await eventually(() => !client.connected);
    await client.endAsync(true);
    // After the attacker's connection is gone, a sentinel round trip proves the broker moved on.
    await sentinel.powerCut();
    await recorder.until((seen) => seen.presence.some((p) => p.lockId === sentinel.client.options.clientId && !p.online));
    assert.equal(recorder.seen.presence.some((p) => p.lockId === victim.id), false);
  });
});

describe('embedded broker over TLS', { skip: spawnSync('openssl', ['version']).error ? 'openssl is not installed' : false }, () => {
  it('serves mqtts:// to the lock link and to locks', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'latchkey-tls-'));
    try {
      const key = join(dir, 'key.pem');
      const cert = join(dir, 'cert.pem');
      const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert,
        '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1']);
      assert.equal(made.status, 0, String(made.stderr));
      const tls = { key: await readFile(key), cert: await readFile(cert) };
      const service = { username: 'svc', password: randomUUID() };
      const lockId = randomUUID();
      const broker = await startLockBroker({
        port: 0, host: '127.0.0.1', tls, serviceCredentials: service, logger: silent,
        authenticateDevice: async (id, secret) => id === lockId && secret === 'device-secret',
      });
      const url = `mqtts://127.0.0.1:${broker.port}`;
      const link = await createLockLink({ broker: url, ...service, ca: tls.cert, replyTimeoutMs: 5000, logger: silent, handlers: recordingHandlers().handlers });
      const lock = await connectAsync(url, { clientId: lockId, username: lockId, password: 'device-secret', ca: tls.cert, protocolVersion: 4, reconnectPeriod: 0 }, false);
      await lock.publishAsync(`locks/${lockId}/online`, '{"online":true}', { qos: 1, retain: true });
      await eventually(() => link.isOnline(lockId));
      // Without trusting the certificate the connection is refused.
      await assert.rejects(connectAsync(url, { clientId: lockId, username: lockId, password: 'device-secret', protocolVersion: 4, reconnectPeriod: 0 }, false));
      await lock.endAsync();
      await link.close();
      await broker.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
