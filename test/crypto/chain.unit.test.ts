import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createCertificateAuthority, createTrustAnchor, issueDeviceCertificate, issueLeafCertificate, verifyCertificateChain, type CertificateAuthority } from '../../src/crypto/pki.js';
import { isAppError } from '../../src/errors/catalogue.js';
import { DAY, asIssuer, craftCertificate, ed25519Pair, parsed } from './pki-helpers.js';

const NOW = 1_800_000_000;
const USER = '0190a8e4-1111-7000-8000-000000000001';
const OTHER_USER = '0190a8e4-2222-7000-8000-000000000002';
const { digitalSignature, keyCertSign } = x509.KeyUsageFlags;

async function rejects(chain: unknown, root: Parameters<typeof verifyCertificateChain>[1], now: number, reason?: RegExp): Promise<void> {
  await assert.rejects(verifyCertificateChain(chain, root, now), (error: unknown) => {
    assert.ok(isAppError(error), `expected an AppError, got ${String(error)}`);
    assert.equal(error.status, 401);
    assert.equal(error.error, 'bad_signature');
    if (reason) assert.match(error.message, reason);
    return true;
  });
}

describe('verifyCertificateChain', () => {
  let ca: CertificateAuthority;
  let root: Buffer;
  let chain: string[];
  before(async () => {
    ca = await createCertificateAuthority({ name: 'Latchkey', now: NOW });
    root = ca.root.der;
    chain = await issueLeafCertificate(ca, { userId: USER, publicKey: generateKeyPairSync('ed25519').publicKey, now: NOW });
  });

  it('accepts the chain with or without the root, in either Base64 alphabet, the root given in any form', async () => {
    assert.equal((await verifyCertificateChain(chain, root, NOW)).userId, USER);
    assert.equal((await verifyCertificateChain(chain.slice(0, 2), root, NOW)).userId, USER);
    const urlSafe = chain.map((c) => Buffer.from(c, 'base64').toString('base64url'));
    assert.equal((await verifyCertificateChain(urlSafe, root.toString('base64'), NOW)).userId, USER);
    assert.equal((await verifyCertificateChain(chain, ca.root.certificate, NOW)).userId, USER);
  });

  it("refuses a lock's device certificate as a user's, though the same CA issued it", async () => {
    const lockId = '0190a8e4-3333-7000-8000-000000000003';
    const device = await issueDeviceCertificate(ca, { lockId, publicKey: generateKeyPairSync('ed25519').publicKey, now: NOW });
    await rejects(device.map((der) => der.toString('base64')), root, NOW, /lock's, not a user's/);
  });

  it('remembers verified chains per trust anchor and still checks dates each time', async () => {
    const anchor = createTrustAnchor(root);
    await verifyCertificateChain(chain, anchor, NOW);
    await verifyCertificateChain(chain.slice(0, 2), anchor, NOW);
    assert.equal(anchor.issuers.size, 1);
    assert.equal(anchor.chains.size, 1);
    const other = await issueLeafCertificate(ca, { userId: OTHER_USER, publicKey: generateKeyPairSync('ed25519').publicKey, now: NOW });
    assert.equal((await verifyCertificateChain(other, anchor, NOW)).userId, OTHER_USER);
    assert.equal(anchor.issuers.size, 1);
    assert.equal(anchor.chains.size, 2);
    await assert.rejects(verifyCertificateChain(chain, anchor, NOW + 31 * DAY), /expired/);
    await assert.rejects(verifyCertificateChain(chain, anchor, NOW - DAY), /not yet valid/);
  });

  it('decodes a frozen x5c once per anchor, with the same answers and dates checked each time', async () => {
    const anchor = createTrustAnchor(root);
    const frozen = Object.freeze([...chain]);
    assert.equal((await verifyCertificateChain(frozen, anchor, NOW)).userId, USER);
    assert.equal((await verifyCertificateChain(frozen, anchor, NOW)).userId, USER);
    assert.equal(anchor.decoded.has(frozen), true);
    assert.equal(anchor.decoded.has(chain), false);
    await assert.rejects(verifyCertificateChain(frozen, anchor, NOW + 31 * DAY), /expired/);
    const foreign = await createCertificateAuthority({ name: 'Latchkey', now: NOW });
    const foreignChain = Object.freeze(await issueLeafCertificate(foreign, { userId: USER, publicKey: generateKeyPairSync('ed25519').publicKey, now: NOW }));
    await rejects(foreignChain, anchor, NOW, /trusted root/);
    await rejects(foreignChain, anchor, NOW, /trusted root/);
  });

  it('rejects a chain from a foreign CA, even one with the same names', async () => {
    const foreign = await createCertificateAuthority({ name: 'Latchkey', now: NOW });
    const foreignChain = await issueLeafCertificate(foreign, { userId: USER, publicKey: generateKeyPairSync('ed25519').publicKey, now: NOW });
    await rejects(foreignChain, root, NOW, /trusted root/);
    await rejects(foreignChain.slice(0, 2), root, NOW, /trusted root/);
    await rejects([foreignChain[0], chain[1], chain[2]], root, NOW, /trusted root/);
  });

  it('rejects a tampered leaf', async () => {
    const der = Buffer.from(chain[0]!, 'base64');
    const at = der.indexOf(Buffer.from(USER));
    assert.ok(at > 0);
    const tampered = Buffer.from(der);
    tampered.write(OTHER_USER, at);
    await rejects([tampered.toString('base64'), chain[1], chain[2]], root, NOW, /trusted root/);
    const flipped = Buffer.from(der);
    flipped.writeUInt8(flipped.readUInt8(flipped.length - 1) ^ 1, flipped.length - 1);
    await rejects([flipped.toString('base64'), chain[1]], root, NOW, /trusted root/);
  });

  it('rejects a leaf outside its validity period', async () => {
    await rejects(chain, root, NOW + 30 * DAY + 1, /expired/);
    await rejects(chain, root, NOW - 3600, /not yet valid/);
  });

  it('rejects an expired intermediate even when the issuers were verified before', async () => {
    const intermediateKeys = await ed25519Pair();
    const shortIntermediate = await craftCertificate({
      subjectCn: 'Short-lived Intermediate', issuer: asIssuer(ca.root), publicKey: intermediateKeys.publicKey,
      ca: true, pathLength: 0, keyUsage: keyCertSign, notBefore: NOW - 60, notAfter: NOW + 3600,
    });
    const leaf = await craftCertificate({
      subjectCn: USER, issuer: { certificate: parsed(shortIntermediate), privateKey: intermediateKeys.signingKey },
      publicKey: generateKeyPairSync('ed25519').publicKey, ca: false, keyUsage: digitalSignature, notBefore: NOW - 60, notAfter: NOW + 7200,
    });
    const anchor = createTrustAnchor(root);
    assert.equal((await verifyCertificateChain([leaf, shortIntermediate], anchor, NOW)).userId, USER);
    await assert.rejects(verifyCertificateChain([leaf, shortIntermediate], anchor, NOW + 5400), /expired/);
  });

  it('rejects a leaf used as an issuer (CA:FALSE)', async () => {
    const leafKeys = await ed25519Pair();
    const userChain = await issueLeafCertificate(ca, { userId: USER, publicKey: leafKeys.publicKey, now: NOW });
    const grandchild = await craftCertificate({
      subjectCn: OTHER_USER, issuer: { certificate: parsed(userChain[0]!), privateKey: leafKeys.signingKey },
      publicKey: generateKeyPairSync('ed25519').publicKey, ca: false, keyUsage: digitalSignature, notBefore: NOW - 60, notAfter: NOW + DAY,
    });
    await rejects([grandchild, ...userChain], root, NOW, /not a CA/);
  });

  it('enforces the intermediate path length', async () => {
    const subKeys = await ed25519Pair();
    const subCa = await craftCertificate({
      subjectCn: 'Sub CA', issuer: asIssuer(ca.intermediate), publicKey: subKeys.publicKey,
      ca: true, keyUsage: keyCertSign, notBefore: NOW - 60, notAfter: NOW + DAY,
    });
    const leaf = await craftCertificate({
      subjectCn: USER, issuer: { certificate: parsed(subCa), privateKey: subKeys.signingKey },
      publicKey: generateKeyPairSync('ed25519').publicKey, ca: false, keyUsage: digitalSignature, notBefore: NOW - 60, notAfter: NOW + DAY,
    });
    await rejects([leaf, subCa, chain[1], chain[2]], root, NOW, /path length/);
  });

  it('rejects a chain missing its intermediate', async () => {
    await rejects([chain[0], chain[2]], root, NOW, /trusted root/);
    await rejects([chain[0]], root, NOW, /trusted root/);
    await rejects([chain[2]], root, NOW, /no leaf/);
  });

  it('rejects leaves that are CAs, not for signatures, not Ed25519 or with unknown critical extensions', async () => {
    const base = {
      subjectCn: USER, issuer: asIssuer(ca.intermediate), publicKey: generateKeyPairSync('ed25519').publicKey,
      ca: false, keyUsage: digitalSignature, notBefore: NOW - 60, notAfter: NOW + DAY,
    };
    const good = await craftCertificate(base);
    assert.equal((await verifyCertificateChain([good, chain[1]], root, NOW)).userId, USER);
    await rejects([await craftCertificate({ ...base, ca: true, keyUsage: digitalSignature | keyCertSign }), chain[1]], root, NOW, /leaf certificate is a CA/);
    await rejects([await craftCertificate({ ...base, keyUsage: x509.KeyUsageFlags.keyEncipherment }), chain[1]], root, NOW, /digital signatures/);
    await rejects([await craftCertificate({ ...base, publicKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey }), chain[1]], root, NOW, /not Ed25519/);
    const critical = new x509.Extension('1.3.6.1.4.1.99999.1', true, new Uint8Array([0x05, 0x00]));
    await rejects([await craftCertificate({ ...base, extraExtensions: [critical] }), chain[1]], root, NOW, /critical extension/);
    await rejects([await craftCertificate({ ...base, uid: OTHER_USER }), chain[1]], root, NOW, /one user/);
    const serverOnly = new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]);
    await rejects([await craftCertificate({ ...base, extraExtensions: [serverOnly] }), chain[1]], root, NOW, /client authentication/);
  });

  it('refuses a now that is not Unix seconds instead of skipping the date checks', async () => {
    await assert.rejects(verifyCertificateChain(chain, root, Number.NaN), TypeError);
    await assert.rejects(verifyCertificateChain(chain, root, NOW * 1000), TypeError);
  });

  it('rejects malformed x5c values', async () => {
    for (const bad of [undefined, 'abc', [], [''], ['%%%'], [Buffer.from('not a certificate').toString('base64')], [42], new Array(6).fill(chain[0])]) {
      await rejects(bad, root, NOW);
    }
  });
});
