import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import assert from 'node:assert/strict';
import { X509Certificate, generateKeyPairSync, type webcrypto } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { ed25519RawFromKey } from '../../src/crypto/ed25519.js';
import {
  createCertificateAuthority, exportCertificateAuthority, importCertificateAuthority, issueLeafCertificate, verifyCertificateChain,
  x509Crypto, type CertificateAuthority,
} from '../../src/crypto/pki.js';
import { DAY } from './pki-helpers.js';

const NOW = 1_800_000_000;
const USER = '0190a8e4-1111-7000-8000-000000000001';

describe('certificate authority', () => {
  let ca: CertificateAuthority;
  before(async () => {
    ca = await createCertificateAuthority({ name: 'Latchkey Test', now: NOW });
  });

  it('creates a self-signed root and an intermediate with CA constraints (checked by OpenSSL)', () => {
    const root = new X509Certificate(ca.root.der);
    const intermediate = new X509Certificate(ca.intermediate.der);
    assert.equal(root.ca, true);
    assert.equal(intermediate.ca, true);
    assert.equal(root.verify(root.publicKey), true);
    assert.equal(intermediate.checkIssued(root), true);
    assert.equal(intermediate.verify(root.publicKey), true);
    assert.match(root.subject, /Latchkey Test Root CA/);
    const pathLength = ca.intermediate.certificate.getExtension(x509.BasicConstraintsExtension);
    assert.equal(pathLength?.pathLength, 0);
    assert.equal(pathLength?.critical, true);
    const usage = ca.intermediate.certificate.getExtension(x509.KeyUsagesExtension);
    assert.equal(usage?.critical, true);
    assert.equal(usage!.usages & x509.KeyUsageFlags.keyCertSign, x509.KeyUsageFlags.keyCertSign);
    const years = (d: Date) => (d.getTime() / 1000 - NOW) / (365 * DAY);
    assert.ok(Math.abs(years(ca.root.certificate.notAfter) - 20) < 0.01);
    assert.ok(Math.abs(years(ca.intermediate.certificate.notAfter) - 10) < 0.01);
  });

  it('uses a different random serial for every certificate', async () => {
    const other = await createCertificateAuthority({ name: 'Latchkey Test', now: NOW });
    const serials = new Set([ca.root, ca.intermediate, other.root, other.intermediate].map((c) => c.certificate.serialNumber));
    assert.equal(serials.size, 4);
  });

  it('issues a leaf that OpenSSL accepts under the root and that names the user', async () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const chain = await issueLeafCertificate(ca, { userId: USER, publicKey, now: NOW });
    assert.equal(chain.length, 3);
    assert.equal(chain[1], ca.intermediate.der.toString('base64'));
    assert.equal(chain[2], ca.root.der.toString('base64'));
    const leaf = new X509Certificate(Buffer.from(chain[0]!, 'base64'));
    assert.equal(leaf.ca, false);
    assert.equal(leaf.checkIssued(new X509Certificate(ca.intermediate.der)), true);
    assert.equal(leaf.verify(new X509Certificate(ca.intermediate.der).publicKey), true);
    assert.match(leaf.subject, new RegExp(`CN=${USER}`));
    assert.match(leaf.subject, new RegExp(`UID=${USER}`));
    assert.deepEqual(leaf.keyUsage, ['1.3.6.1.5.5.7.3.2']);
    assert.equal(Date.parse(leaf.validTo) / 1000, NOW + 30 * DAY);
    const parsedLeaf = new x509.X509Certificate(Buffer.from(chain[0]!, 'base64'));
    assert.ok(parsedLeaf.getExtension(x509.SubjectKeyIdentifierExtension));
    assert.ok(parsedLeaf.getExtension(x509.AuthorityKeyIdentifierExtension));
    assert.equal(parsedLeaf.getExtension(x509.KeyUsagesExtension)?.critical, true);

    const verified = await verifyCertificateChain(chain, ca.root.der, NOW + 60);
    assert.equal(verified.userId, USER);
    assert.deepEqual(ed25519RawFromKey(verified.publicKey), ed25519RawFromKey(publicKey));
  });

  it('honours a custom lifetime but never outlives the intermediate', async () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const short = await issueLeafCertificate(ca, { userId: USER, publicKey, now: NOW, lifetimeSeconds: 3600 });
    assert.equal((await verifyCertificateChain(short, ca.root.der, NOW)).notAfter, NOW + 3600);
    const long = await issueLeafCertificate(ca, { userId: USER, publicKey, now: NOW, lifetimeSeconds: 50 * 365 * DAY });
    assert.equal((await verifyCertificateChain(long, ca.root.der, NOW)).notAfter, ca.intermediate.certificate.notAfter.getTime() / 1000);
  });

  it('refuses to certify a key that is not Ed25519', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await assert.rejects(issueLeafCertificate(ca, { userId: USER, publicKey, now: NOW }), TypeError);
  });

  it('round-trips through the exported JSON form', async () => {
    const exported = await exportCertificateAuthority(ca);
    assert.deepEqual(Object.keys(exported).sort(), ['intermediateCertificate', 'intermediatePrivateKey', 'rootCertificate', 'rootPrivateKey', 'version']);
    const imported = await importCertificateAuthority(JSON.parse(JSON.stringify(exported)));
    assert.deepEqual(imported.root.der, ca.root.der);
    assert.deepEqual(imported.intermediate.der, ca.intermediate.der);
    assert.deepEqual(await exportCertificateAuthority(imported), exported);
    const { publicKey } = generateKeyPairSync('ed25519');
    const chain = await issueLeafCertificate(imported, { userId: USER, publicKey, now: NOW });
    assert.equal((await verifyCertificateChain(chain, ca.root.der.toString('base64'), NOW)).userId, USER);
  });

  it('refuses to import keys that do not match their certificates, or garbage', async () => {
    const exported = await exportCertificateAuthority(ca);
    const swapped = { ...exported, rootPrivateKey: exported.intermediatePrivateKey, intermediatePrivateKey: exported.rootPrivateKey };
    await assert.rejects(importCertificateAuthority(swapped), /does not match/);
    const other = await exportCertificateAuthority(await createCertificateAuthority({ name: 'Other', now: NOW }));
    await assert.rejects(importCertificateAuthority({ ...exported, intermediateCertificate: other.intermediateCertificate }), /not signed by the root/);
    await assert.rejects(importCertificateAuthority({ ...exported, rootCertificate: 'not base64!' }), /rootCertificate/);
    await assert.rejects(importCertificateAuthority({ ...exported, version: 2 }), /version 1/);
    await assert.rejects(importCertificateAuthority(null), /version 1/);
  });

  it('imports an operator-supplied ECDSA P-256 CA and issues verifiable leaves with it', async () => {
    const crypto = x509Crypto();
    const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const keys = (await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const extensions = [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)];
    const root = await x509.X509CertificateGenerator.createSelfSigned(
      { name: 'CN=Operator Root', keys, signingAlgorithm: algorithm, notBefore: new Date((NOW - DAY) * 1000), notAfter: new Date((NOW + 365 * DAY) * 1000), extensions },
      crypto,
    );
    const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
    const der = Buffer.from(root.rawData).toString('base64');
    // The root doubles as the intermediate: the import checks links, not the number of levels.
    const imported = await importCertificateAuthority({ version: 1, rootCertificate: der, rootPrivateKey: pkcs8, intermediateCertificate: der, intermediatePrivateKey: pkcs8 });
    const { publicKey } = generateKeyPairSync('ed25519');
    const chain = await issueLeafCertificate(imported, { userId: USER, publicKey, now: NOW });
    assert.equal((await verifyCertificateChain(chain.slice(0, 1), der, NOW)).userId, USER);
  });
});
