import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { connectAsync, type IClientOptions } from 'mqtt';
import { createCertificateAuthority, issueDeviceCertificate } from '../../src/crypto/pki.js';
import { writeDeviceCertificate } from '../../src/locks/device-certificates.js';
import { startService, type RunningService } from '../../src/server.js';
import { provisionLock } from '../helpers/locks.js';
import { mosquittoInstalled, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { startTestService, type TestService, TEST_SERVICE_OPTIONS } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

const run = promisify(execFile);
const pem = (der: Buffer) => `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`;

/**
 * Device certificates with Mosquitto run from docs/deployment/mosquitto-certificates.conf: a lock
 * logs in with the certificate `latchkey lock provision --cert-out` wrote, no per-lock step on the
 * broker; a certificate from another CA is refused; the one pattern ACL confines the lock.
 */
describe('device certificates through Mosquitto', { skip: !mosquittoInstalled && 'mosquitto not installed' }, () => {
  const service = { username: 'latchkey-service', password: 'service-password-for-tests' };
  let t: TestService;
  let mosquitto: Mosquitto;
  let ext: RunningService;
  let dir: string;
  let brokerCa: string;
  const lockIds: string[] = [];

  before(async () => {
    t = await startTestService();
    dir = await mkdtemp(join(tmpdir(), 'latchkey-device-certs-'));
    // The broker's own server certificate (any CA the locks trust; here a self-signed one).
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'broker-key.pem'), '-out', join(dir, 'broker-cert.pem')]);
    brokerCa = await readFile(join(dir, 'broker-cert.pem'), 'utf8');
    for (let i = 0; i < 2; i++) {
      const lock = await provisionLock(t);
      lockIds.push(lock.id);
      await writeDeviceCertificate(t.config, t.service.ctx.db, lock.id, dir, Date.now() / 1000);
    }
    mosquitto = await startMosquitto([service], service.username, {
      config: 'mosquitto-certificates.conf',
      tls: { deviceCa: await readFile(join(dir, 'ca.pem'), 'utf8'), cert: brokerCa, key: await readFile(join(dir, 'broker-key.pem'), 'utf8') },
    });
    ext = await startService({ ...t.config, port: 0, mqtt: { kind: 'external', url: mosquitto.url.replace('mqtt://', `mqtt://${service.username}:${service.password}@`) } }, TEST_SERVICE_OPTIONS);
  });
  after(async () => {
    await ext?.close();
    await mosquitto?.close();
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const tlsOptions = (clientId: string, key: string | Buffer, cert: string | Buffer): IClientOptions => ({
    clientId, key, cert, ca: brokerCa, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000, clean: true,
  });
  const lockFiles = async (id: string) => ({ key: await readFile(join(dir, `${id}.key.pem`)), cert: await readFile(join(dir, `${id}.cert.pem`)) });

  it('accepts the lock\'s certificate, with no password; the service sees it online', async () => {
    const [id] = lockIds as [string];
    const { key, cert } = await lockFiles(id);
    const client = await connectAsync(`mqtts://127.0.0.1:${mosquitto.tlsPort}`, tlsOptions(id, key, cert), false);
    try {
      await client.publishAsync(`locks/${id}/online`, '{"online":true,"configVersion":null}', { qos: 1, retain: true });
      await eventually(() => ext.ctx.link.isOnline(id), 'the lock online');
      assert.equal(ext.ctx.link.isOnline(id), true);
    } finally {
      await client.endAsync();
    }
  });

  it('refuses no certificate and a certificate from another CA', async () => {
    const [id] = lockIds as [string];
    await assert.rejects(connectAsync(`mqtts://127.0.0.1:${mosquitto.tlsPort}`, { ...tlsOptions(id, '', ''), key: undefined, cert: undefined } as IClientOptions, false));
    const foreign = await createCertificateAuthority({ name: 'Foreign', now: Date.now() / 1000 });
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const chain = await issueDeviceCertificate(foreign, { lockId: id, publicKey, now: Date.now() / 1000 });
    await assert.rejects(connectAsync(`mqtts://127.0.0.1:${mosquitto.tlsPort}`, tlsOptions(id, privateKey.export({ format: 'pem', type: 'pkcs8' }), chain.map(pem).join('')), false));
  });

  it('confines a lock to its own topics: another lock\'s command is refused, its reports never reach the service', async () => {
    const [mine, other] = lockIds as [string, string];
    const { key, cert } = await lockFiles(mine);
    // Whatever username it claims, the broker takes the certificate's.
    const client = await connectAsync(`mqtts://127.0.0.1:${mosquitto.tlsPort}`, { ...tlsOptions(mine, key, cert), username: other }, false);
    try {
      // Mosquitto 2.0 grants the subscription but delivers nothing the read ACL forbids.
      const received: string[] = [];
      client.on('message', (topic) => received.push(topic));
      await client.subscribeAsync([`locks/${other}/command`, `locks/${mine}/command`], { qos: 1 }).catch(() => undefined);
      const sender = await connectAsync(mosquitto.url, { ...service, reconnectPeriod: 0 }, false);
      await sender.publishAsync(`locks/${other}/command`, '{}', { qos: 1 });
      await sender.publishAsync(`locks/${mine}/command`, '{}', { qos: 1 });
      await sender.endAsync();
      // One publisher, one broker thread, one subscriber connection: had the other lock's command
      // been delivered, it would have come before this lock's, sent after it.
      await eventually(() => received.includes(`locks/${mine}/command`), 'this lock\'s command');
      assert.deepEqual(received, [`locks/${mine}/command`]);
      await client.publishAsync(`locks/${other}/online`, '{"online":true}', { qos: 1, retain: true });
      await client.publishAsync(`locks/${mine}/online`, '{"online":true}', { qos: 1, retain: true });
      await eventually(() => ext.ctx.link.isOnline(mine), 'this lock online');
      assert.equal(ext.ctx.link.isOnline(mine), true);
      assert.equal(ext.ctx.link.isOnline(other), false, 'a publish on another lock\'s topic is dropped by the ACL');
    } finally {
      await client.endAsync();
    }
  });
});
