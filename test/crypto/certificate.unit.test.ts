import 'reflect-metadata';
import { AlgorithmIdentifier, Version } from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { createCertificateAuthority, issueLeafCertificate, verifyCertificateChain, type CertificateAuthority } from '../../src/crypto/pki.js';
import { isAppError } from '../../src/errors/catalogue.js';
import { asIssuer, craftCertificate, resign } from './pki-helpers.js';

/**
 * How certificates are read (src/crypto/certificate.ts), through the one public entry point:
 * strict DER, v3 only, no ambiguity. Each malformed certificate below still carries a valid
 * signature where one is possible, so it is refused for its form, not for a broken signature.
 */

const NOW = 1_800_000_000; // 2027-01-15T08:00:00Z
const USER = '0190a8e4-1111-7000-8000-000000000001';

async function refused(chain: unknown[], root: Buffer, reason: RegExp): Promise<void> {
  await assert.rejects(verifyCertificateChain(chain, root, NOW), (error: unknown) => {
    assert.ok(isAppError(error), `expected an AppError, got ${String(error)}`);
    assert.equal(error.status, 401);
    assert.equal(error.error, 'bad_signature');
    assert.match(error.message, reason);
    return true;
  });
}

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

function replaceOnce(bytes: Buffer, from: Buffer, to: Buffer): void {
  const at = bytes.indexOf(from);
  assert.ok(at >= 0 && bytes.indexOf(from, at + 1) < 0, `expected ${from.toString('hex')} once`);
  to.copy(bytes, at);
}

describe('certificate reading', () => {
  let ca: CertificateAuthority;
  let root: Buffer;
  let chain: string[];
  let leafDer: Buffer;
  before(async () => {
    ca = await createCertificateAuthority({ name: 'Latchkey', now: NOW });
    root = ca.root.der;
    chain = await issueLeafCertificate(ca, { userId: USER, publicKey: generateKeyPairSync('ed25519').publicKey, now: NOW });
    leafDer = Buffer.from(chain[0]!, 'base64');
  });
  const resigned = (mutate: Parameters<typeof resign>[2]) => resign(chain[0]!, ca.intermediate.privateKey, mutate);

  it('accepts a leaf signed again unchanged (the mutations below are what is refused)', async () => {
    assert.equal((await verifyCertificateChain([await resigned({}), chain[1]], root, NOW)).userId, USER);
  });

  it('refuses trailing bytes, indefinite and non-minimal lengths around a validly signed certificate', async () => {
    assert.equal(leafDer[0], 0x30);
    assert.equal(leafDer[1], 0x82, 'the leaf is expected to use a two-byte length');
    const content = leafDer.subarray(4);
    const variants = [
      Buffer.concat([leafDer, hex('00')]),
      Buffer.concat([hex('3080'), content, hex('0000')]),
      Buffer.concat([hex('308300'), leafDer.subarray(2)]),
      leafDer.subarray(0, leafDer.length - 1),
    ];
    for (const der of variants) await refused([der.toString('base64'), chain[1]], root, /malformed certificate/);
  });

  it('refuses an impossible date and a BOOLEAN that is not DER, though signed', async () => {
    // notAfter is 30 days on: 2027-02-14; make it February 30th.
    const february30 = await resigned({ bytes: (tbs) => replaceOnce(tbs, Buffer.from('270214080000Z'), Buffer.from('270230080000Z')) });
    await refused([february30, chain[1]], root, /malformed certificate/);
    // basicConstraints marked critical with BOOLEAN 0x01 instead of 0xff.
    const looseBoolean = await resigned({ bytes: (tbs) => replaceOnce(tbs, hex('0603551d13 0101ff'), hex('0603551d13 010101')) });
    await refused([looseBoolean, chain[1]], root, /malformed certificate/);
  });

  it('refuses a v1 certificate, a signed algorithm unlike the outer one, a duplicate or unreadable extension', async () => {
    const v1 = await resigned({ asn: (cert) => void (cert.tbsCertificate.version = Version.v1) });
    await refused([v1, chain[1]], root, /malformed certificate/);
    const mismatch = await resigned({ asn: (cert) => void (cert.tbsCertificate.signature = new AlgorithmIdentifier({ algorithm: '1.2.840.10045.4.3.2' })) });
    await refused([mismatch, chain[1]], root, /malformed certificate/);
    const duplicate = await resigned({ asn: (cert) => void cert.tbsCertificate.extensions!.push(cert.tbsCertificate.extensions![1]!) });
    await refused([duplicate, chain[1]], root, /malformed certificate/);
    const unreadable = await resigned({
      asn: (cert) => {
        const constraints = cert.tbsCertificate.extensions!.find((extension) => extension.extnID === '2.5.29.19')!;
        constraints.extnValue = new (constraints.extnValue.constructor as new (bytes: Uint8Array) => typeof constraints.extnValue)(hex('30030101'));
      },
    });
    await refused([unreadable, chain[1]], root, /malformed certificate/);
  });

  it('refuses a signature algorithm outside the accepted list, even when inner and outer agree', async () => {
    const sha1Rsa = new AlgorithmIdentifier({ algorithm: '1.2.840.113549.1.1.5', parameters: null });
    const unaccepted = await resigned({
      asn: (cert) => {
        cert.tbsCertificate.signature = sha1Rsa;
        cert.signatureAlgorithm = sha1Rsa;
      },
    });
    await refused([unaccepted, chain[1]], root, /trusted root/);
  });

  it('reads UTCTime of the 1900s and GeneralizedTime from 2050 on', async () => {
    const notBefore = Date.UTC(1999, 11, 31, 23, 59, 59) / 1000;
    const notAfter = Date.UTC(2055, 0, 1) / 1000;
    const longLived = await craftCertificate({
      subjectCn: USER, issuer: asIssuer(ca.intermediate), publicKey: generateKeyPairSync('ed25519').publicKey,
      ca: false, keyUsage: x509.KeyUsageFlags.digitalSignature, notBefore, notAfter,
    });
    const der = Buffer.from(longLived, 'base64');
    assert.ok(der.includes(Buffer.concat([hex('170d'), Buffer.from('991231235959Z')])), 'notBefore is a UTCTime');
    assert.ok(der.includes(Buffer.concat([hex('180f'), Buffer.from('20550101000000Z')])), 'notAfter is a GeneralizedTime');
    // Read as 2099 the leaf would not be valid yet; read as 2055 it expires then.
    assert.equal((await verifyCertificateChain([longLived, chain[1]], root, NOW)).notAfter, notAfter);
    await assert.rejects(verifyCertificateChain([longLived, chain[1]], root, notAfter + 1), /expired/);
  });
});
