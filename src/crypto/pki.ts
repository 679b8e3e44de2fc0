import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomBytes, type KeyObject, type webcrypto } from 'node:crypto';
import { ED25519_CA, x509Crypto, type CaAlgorithm, type CaCertificate, type CertificateAuthority } from './ca-model.js';
import { DEVICE_OU, OID, parseCertificate } from './certificate.js';
import { assertUnixSeconds } from './chain.js';

/**
 * Our PKI (decisions §3): a root CA, an intermediate CA it signs, and the 30-day leaf
 * certificates the intermediate issues for users' Ed25519 ephemeral keys. Locks trust the root.
 *
 * The CA keys are Ed25519 too: a lock must already verify Ed25519 (the leaf keys sign the
 * operations), so the whole chain needs that one algorithm; signatures are deterministic (no
 * nonce to get wrong, unlike ECDSA), certificates are small and verification is fast. An
 * operator-supplied CA with ECDSA P-256/P-384 keys is also accepted on import.
 *
 * Verification lives in chain.ts (on the same library's reading of certificates) and is re-exported here.
 */

export { createTrustAnchor, verifyCertificateChain, MAX_CHAIN_LENGTH, type TrustAnchor, type TrustedRoot, type VerifiedLeaf } from './chain.js';
export { ED25519_CA, x509Crypto, type CaAlgorithm, type CaCertificate, type CertificateAuthority } from './ca-model.js';
export { exportCertificateAuthority, importCertificateAuthority, type ExportedCertificateAuthority } from './ca-store.js';

const YEAR_SECONDS = 365 * 24 * 3600;
export const ROOT_LIFETIME_SECONDS = 20 * YEAR_SECONDS;
export const INTERMEDIATE_LIFETIME_SECONDS = 10 * YEAR_SECONDS;
export const DEFAULT_LEAF_LIFETIME_SECONDS = 30 * 24 * 3600;
/** Certificates start slightly in the past so that a lock whose clock runs late accepts them. */
const BACKDATE_SECONDS = 5 * 60;
/** ub-common-name (RFC 5280 appendix A): longer names are refused by strict X.509 libraries. */
const MAX_COMMON_NAME = 64;

/** A random positive 128-bit serial number, hex (RFC 5280 §4.1.2.2 allows up to 20 octets). */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x40;
  return bytes.toString('hex');
}

function validity(now: number, lifetimeSeconds: number): { notBefore: Date; notAfter: Date } {
  assertUnixSeconds(now);
  if (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds <= 0) throw new TypeError('lifetimeSeconds must be a positive integer');
  return {
    notBefore: new Date((Math.floor(now) - BACKDATE_SECONDS) * 1000),
    notAfter: new Date((Math.floor(now) + lifetimeSeconds) * 1000),
  };
}

const caExtensions = (pathLength: number | undefined) => [
  new x509.BasicConstraintsExtension(true, pathLength, true),
  new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
];

async function authorityKeyIdentifier(issuer: CaCertificate): Promise<x509.AuthorityKeyIdentifierExtension> {
  const ski = issuer.certificate.getExtension(x509.SubjectKeyIdentifierExtension);
  if (ski !== null) return new x509.AuthorityKeyIdentifierExtension(ski.keyId);
  return x509.AuthorityKeyIdentifierExtension.create(issuer.certificate.publicKey, false, x509Crypto());
}

async function generateEd25519Pair(): Promise<webcrypto.CryptoKeyPair> {
  return (await x509Crypto().subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

function toCaCertificate(certificate: x509.X509Certificate, privateKey: webcrypto.CryptoKey, algorithm: CaAlgorithm): CaCertificate {
  return { certificate, der: Buffer.from(certificate.rawData), privateKey, algorithm };
}

/**
 * Creates a new root CA (self-signed, 20 years) and an intermediate CA signed by it (10 years,
 * pathLen 0), both Ed25519. `name` labels them (`<name> Root CA`); `now` is Unix seconds.
 */
export async function createCertificateAuthority(options: { name: string; now: number }): Promise<CertificateAuthority> {
  const crypto = x509Crypto();
  const rootKeys = await generateEd25519Pair();
  const rootCertificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerial(),
      name: [{ [OID.commonName]: [`${options.name} Root CA`] }],
      keys: rootKeys,
      signingAlgorithm: ED25519_CA.signingAlgorithm,
      ...validity(options.now, ROOT_LIFETIME_SECONDS),
      extensions: [...caExtensions(undefined), await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey, false, crypto)],
    },
    crypto,
  );
  const root = toCaCertificate(rootCertificate, rootKeys.privateKey, ED25519_CA);
  const intermediateKeys = await generateEd25519Pair();
  const intermediateCertificate = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerial(),
      subject: [{ [OID.commonName]: [`${options.name} Intermediate CA`] }],
      issuer: rootCertificate.subjectName,
      publicKey: intermediateKeys.publicKey,
      signingKey: rootKeys.privateKey,
      signingAlgorithm: ED25519_CA.signingAlgorithm,
      ...validity(options.now, INTERMEDIATE_LIFETIME_SECONDS),
      extensions: [
        ...caExtensions(0),
        await x509.SubjectKeyIdentifierExtension.create(intermediateKeys.publicKey, false, crypto),
        await authorityKeyIdentifier(root),
      ],
    },
    crypto,
  );
  return { root, intermediate: toCaCertificate(intermediateCertificate, intermediateKeys.privateKey, ED25519_CA) };
}

/**
 * Issues a leaf certificate for a user's Ed25519 key, signed by the intermediate: subject
 * CN=<userId> and UID=<userId>, CA:FALSE, keyUsage digitalSignature (critical), extendedKeyUsage
 * clientAuth, key identifiers. Valid from a few minutes before `now` (Unix seconds) for
 * `lifetimeSeconds` (default 30 days), never beyond the intermediate. Returns the x5c chain
 * `[leaf, intermediate, root]` as Base64 DER.
 */
export async function issueLeafCertificate(
  ca: CertificateAuthority,
  options: { userId: string; publicKey: KeyObject; now: number; lifetimeSeconds?: number },
): Promise<string[]> {
  const { userId } = options;
  if (typeof userId !== 'string' || userId.length === 0 || userId.length > MAX_COMMON_NAME) throw new TypeError('userId must be 1 to 64 characters');
  const subject = new x509.Name([{ [OID.commonName]: [{ utf8String: userId }] }, { [OID.userId]: [{ utf8String: userId }] }]);
  const leafDer = await issueClientLeaf(ca, subject, options.publicKey, options.now, options.lifetimeSeconds ?? DEFAULT_LEAF_LIFETIME_SECONDS);
  return [leafDer, ca.intermediate.der, ca.root.der].map((der) => der.toString('base64'));
}

export const DEVICE_CERTIFICATE_LIFETIME_SECONDS = 2 * YEAR_SECONDS;

/**
 * A lock's MQTT client certificate (issue 16): CN=<lockId>, OU=latchkey-lock, clientAuth, from the
 * intermediate. A broker taking the identity from the certificate (Mosquitto
 * `use_identity_as_username`, the embedded broker) logs the lock in as its id. Returns the
 * certificate chain `[leaf, intermediate]` as DER; the root is what brokers trust.
 */
export async function issueDeviceCertificate(
  ca: CertificateAuthority,
  options: { lockId: string; publicKey: KeyObject; now: number; lifetimeSeconds?: number },
): Promise<Buffer[]> {
  if (!/^[0-9a-f-]{1,64}$/.test(options.lockId)) throw new TypeError('lockId must be a lock id');
  const subject = new x509.Name([{ [OID.commonName]: [{ utf8String: options.lockId }] }, { [OID.organizationalUnit]: [{ utf8String: DEVICE_OU }] }]);
  const leaf = await issueClientLeaf(ca, subject, options.publicKey, options.now, options.lifetimeSeconds ?? DEVICE_CERTIFICATE_LIFETIME_SECONDS);
  return [leaf, ca.intermediate.der];
}

/** An end-entity certificate for client authentication with an Ed25519 key, signed by the intermediate. */
async function issueClientLeaf(ca: CertificateAuthority, subject: x509.Name, publicKey: KeyObject, now: number, lifetimeSeconds: number): Promise<Buffer> {
  if (publicKey.type !== 'public' || publicKey.asymmetricKeyType !== 'ed25519') throw new TypeError('leaf key must be an Ed25519 public key');
  const crypto = x509Crypto();
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  const { notBefore, notAfter } = validity(now, lifetimeSeconds);
  const leaf = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerial(),
      subject,
      issuer: ca.intermediate.certificate.subjectName,
      publicKey: spki,
      signingKey: ca.intermediate.privateKey,
      signingAlgorithm: ca.intermediate.algorithm.signingAlgorithm,
      notBefore,
      notAfter: notAfter > ca.intermediate.certificate.notAfter ? ca.intermediate.certificate.notAfter : notAfter,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth], false),
        await x509.SubjectKeyIdentifierExtension.create(spki, false, crypto),
        await authorityKeyIdentifier(ca.intermediate),
      ],
    },
    crypto,
  );
  const leafDer = Buffer.from(leaf.rawData);
  // Chain verification compares names byte for byte; make sure the re-encoded issuer name matches.
  if (!parseCertificate(leafDer).issuer.equals(parseCertificate(ca.intermediate.der).subject)) {
    throw new Error('issued certificate does not name its issuer exactly');
  }
  return leafDer;
}
