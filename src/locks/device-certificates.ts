import { generateKeyPairSync } from 'node:crypto';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import type { Config } from '../config/config.js';
import { loadCertificateAuthority } from '../certificates/ca.js';
import { createSecretBox, loadKeyEncryptionKey } from '../crypto/secret-box.js';
import { issueDeviceCertificate } from '../crypto/pki.js';
import type { Database } from '../db/database.js';

/** What `--cert-out DIR` wrote (paths). */
export interface DeviceCertificateFiles {
  key: string;
  certificate: string;
  ca: string;
}

const pem = (label: string, der: Buffer): string => `-----BEGIN ${label}-----\n${der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END ${label}-----\n`;

/**
 * Issues lock `lockId` a TLS client certificate from the service's CA (issue 16) and writes
 * `DIR/<id>.key.pem` (its private key, mode 0600, generated here and kept nowhere else),
 * `DIR/<id>.cert.pem` (certificate and intermediate) and `DIR/ca.pem` (the root brokers trust).
 * Renewing is issuing again: the old certificate stays valid until it expires.
 */
export async function writeDeviceCertificate(config: Config, db: Database, lockId: string, dir: string, now: number): Promise<DeviceCertificateFiles> {
  const box = createSecretBox(loadKeyEncryptionKey(config.keyEncryptionKey, config.dataDir));
  const pki = await loadCertificateAuthority({ db, box, logger: pino({ level: 'silent' }), now: () => now, config });
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const chain = await issueDeviceCertificate(pki.ca, { lockId, publicKey, now });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const files = { key: join(dir, `${lockId}.key.pem`), certificate: join(dir, `${lockId}.cert.pem`), ca: join(dir, 'ca.pem') };
  await writeFile(files.key, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  await chmod(files.key, 0o600);
  await writeFile(files.certificate, chain.map((der) => pem('CERTIFICATE', der)).join(''));
  await writeFile(files.ca, pem('CERTIFICATE', pki.ca.root.der));
  return files;
}
