import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { connectAsync, type IClientOptions } from 'mqtt';
import { createCertificateAuthority, exportCertificateAuthority, issueDeviceCertificate } from '../../src/crypto/pki.js';
import { writeDeviceCertificate } from '../../src/locks/device-certificates.js';
import { provisionLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

const run = promisify(execFile);
const pem = (der: Buffer) => `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`;

/** The embedded broker over TLS with device certificates (MQTT_TLS_CLIENT_CA_FILE): the lock id is the certificate's. */
describe('embedded broker: device certificates', () => {
  let t: TestService;
  let dir: string;
  let brokerCa: string;
  let lockId: string;
  let otherId: string;
  let otherSecret: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'latchkey-embedded-certs-'));
    await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'broker-key.pem'), '-out', join(dir, 'broker-cert.pem')]);
    brokerCa = await readFile(join(dir, 'broker-cert.pem'), 'utf8');
    // An operator CA (CA_FILE), so its root can be the broker's client CA from the first start.
    const ca = await createCertificateAuthority({ name: 'Test', now: Date.now() / 1000 });
    await writeFile(join(dir, 'ca.json'), JSON.stringify(await exportCertificateAuthority(ca)));
    await writeFile(join(dir, 'root.pem'), pem(ca.root.der));
    t = await startTestService({
      CA_FILE: join(dir, 'ca.json'),
      MQTT_TLS_KEY_FILE: join(dir, 'broker-key.pem'),
      MQTT_TLS_CERT_FILE: join(dir, 'broker-cert.pem'),
      MQTT_TLS_CLIENT_CA_FILE: join(dir, 'root.pem'),
    });
    lockId = (await provisionLock(t)).id;
    const other = await provisionLock(t);
    otherId = other.id;
    otherSecret = other.secret;
    await writeDeviceCertificate(t.config, t.service.ctx.db, lockId, dir, Date.now() / 1000);
  });
  after(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const url = () => `mqtts://127.0.0.1:${t.service.ctx.broker!.port}`;
  const options = (extra: IClientOptions): IClientOptions => ({ ca: brokerCa, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000, clean: true, ...extra });
  const own = async () => ({ key: await readFile(join(dir, `${lockId}.key.pem`)), cert: await readFile(join(dir, `${lockId}.cert.pem`)) });

  it('logs a lock in by its certificate alone, as the lock it names', async () => {
    const client = await connectAsync(url(), options({ clientId: lockId, ...(await own()) }), false);
    try {
      await client.publishAsync(`locks/${lockId}/online`, '{"online":true}', { qos: 1, retain: true });
      await eventually(() => t.service.ctx.link.isOnline(lockId), 'the lock online');
      assert.equal(t.service.ctx.link.isOnline(lockId), true);
    } finally {
      await client.endAsync();
    }
  });

  it('refuses the certificate under another lock\'s id, and a certificate from another CA', async () => {
    await assert.rejects(connectAsync(url(), options({ clientId: otherId, ...(await own()) }), false), /Identifier rejected/i);
    await assert.rejects(connectAsync(url(), options({ clientId: lockId, username: otherId, ...(await own()) }), false), /Identifier rejected/i);
    const foreign = await createCertificateAuthority({ name: 'Foreign', now: Date.now() / 1000 });
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const chain = await issueDeviceCertificate(foreign, { lockId, publicKey, now: Date.now() / 1000 });
    await assert.rejects(connectAsync(url(), options({ clientId: lockId, key: privateKey.export({ format: 'pem', type: 'pkcs8' }), cert: chain.map(pem).join('') }), false), /Bad username or password/i);
  });

  it('keeps password logins over TLS (simple set-ups)', async () => {
    const client = await connectAsync(url(), options({ clientId: otherId, username: otherId, password: otherSecret }), false);
    await client.endAsync();
  });
});
