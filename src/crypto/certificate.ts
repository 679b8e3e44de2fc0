import 'reflect-metadata';
import { AsnConvert } from '@peculiar/asn1-schema';
import { BasicConstraints, Certificate, ExtendedKeyUsage, KeyUsage, Version, type AttributeValue } from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';
import { createPublicKey, webcrypto, type KeyObject } from 'node:crypto';
import { ed25519KeyFromRaw, ed25519RawFromSpki } from './ed25519.js';

/**
 * Reads an X.509 v3 certificate (RFC 5280) with @peculiar/x509 into the facts chain verification
 * judges, and checks certificate signatures with the library. The library's decoder is BER-lenient,
 * so a certificate must also re-encode to exactly its own bytes (DER is canonical): trailing bytes,
 * indefinite or non-minimal lengths and impossible dates are refused, never half-understood. An
 * extension's value (signed by the issuer) needs only to be readable by the library.
 */

/** Subject OU of a lock's TLS client certificate: no user certificate has it (the embedded broker requires it). */
export const DEVICE_OU = 'latchkey-lock';

export const OID = {
  ed25519: '1.3.101.112',
  commonName: '2.5.4.3',
  organizationalUnit: '2.5.4.11',
  userId: '0.9.2342.19200300.100.1.1',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  anyExtendedKeyUsage: '2.5.29.37.0',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

export class CertificateError extends Error {
  override name = 'CertificateError';
}

export interface ParsedCertificate {
  der: Buffer;
  /** The library's reading, and the ASN.1 structure beneath it. */
  certificate: x509.X509Certificate;
  asn: Certificate;
  /** Encodings of the issuer and subject names, compared byte for byte when chaining. */
  issuer: Buffer;
  subject: Buffer;
  /** Subject attributes whose value is a string, in order. */
  subjectAttributes: { oid: string; value: string }[];
  /** Unix seconds. */
  notBefore: number;
  notAfter: number;
  /** DER SubjectPublicKeyInfo. */
  spki: Buffer;
  /** basicConstraints, or null when the extension is absent. */
  basicConstraints: { ca: boolean; pathLength: number | null } | null;
  /** keyUsage as x509.KeyUsageFlags, or null when the extension is absent. */
  keyUsages: x509.KeyUsageFlags | null;
  /** extendedKeyUsage purposes (OIDs), or null when the extension is absent (meaning unrestricted). */
  extendedKeyUsages: string[] | null;
  /** OIDs of the extensions marked critical. */
  criticalExtensions: string[];
  /**
   * The certificate's key imported into WebCrypto to verify what it issued, per signature
   * algorithm (an RSA key is imported for one hash): importing costs twice the verification, and
   * issuers verified before stay cached (src/crypto/chain.ts, TrustAnchor) with their keys.
   */
  verificationKeys: Map<string, Promise<webcrypto.CryptoKey>>;
}

/**
 * The WebCrypto that @peculiar/x509 uses: its process-wide default provider (the library's own
 * state), made Node's on first use rather than at import.
 */
export function x509Crypto(): webcrypto.Crypto {
  if (!x509.cryptoProvider.has(x509.CryptoProvider.DEFAULT) || x509.cryptoProvider.get() !== webcrypto) x509.cryptoProvider.set(webcrypto);
  return webcrypto;
}

const encoding = (value: object): Buffer => Buffer.from(AsnConvert.serialize(value));

/** The string types a distinguished name uses; other values (a BIT STRING UID, a UniversalString) are not needed here. */
function attributeText(value: AttributeValue): string | null {
  const text = value.utf8String ?? value.printableString ?? value.ia5String ?? value.teletexString ?? value.bmpString;
  return typeof text === 'string' ? text : null;
}

/** Reads the three extensions our rules judge (with the asn1-x509 structures the library itself uses); others are only listed. */
function readExtensions(asn: Certificate): Pick<ParsedCertificate, 'basicConstraints' | 'keyUsages' | 'extendedKeyUsages' | 'criticalExtensions'> {
  const extensions = asn.tbsCertificate.extensions ?? [];
  if (new Set(extensions.map((extension) => extension.extnID)).size !== extensions.length) throw new CertificateError('duplicate extension');
  const value = <T>(oid: string, type: new () => T): T | null => {
    const extension = extensions.find((candidate) => candidate.extnID === oid);
    return extension === undefined ? null : AsnConvert.parse(extension.extnValue, type);
  };
  const constraints = value(OID.basicConstraints, BasicConstraints);
  const usages = value(OID.keyUsage, KeyUsage);
  const purposes = value(OID.extKeyUsage, ExtendedKeyUsage);
  return {
    basicConstraints: constraints === null ? null : { ca: constraints.cA, pathLength: constraints.pathLenConstraint ?? null },
    keyUsages: usages === null ? null : (usages.toNumber() as x509.KeyUsageFlags),
    extendedKeyUsages: purposes === null ? null : [...purposes],
    criticalExtensions: extensions.filter((extension) => extension.critical).map((extension) => extension.extnID),
  };
}

function readCertificate(der: Buffer): ParsedCertificate {
  const asn = AsnConvert.parse(der, Certificate);
  if (!encoding(asn).equals(der)) throw new CertificateError('not DER');
  // Only v3: extensions carry the CA and key-usage constraints that verification depends on.
  if (asn.tbsCertificate.version !== Version.v3) throw new CertificateError('not an X.509 v3 certificate');
  // RFC 5280 §4.1.1.2: the algorithm inside the signed part must match the outer one.
  if (!encoding(asn.tbsCertificate.signature).equals(encoding(asn.signatureAlgorithm))) throw new CertificateError('signature algorithm mismatch');
  const subjectAttributes = asn.tbsCertificate.subject.flatMap((rdn) =>
    rdn.flatMap((pair) => {
      const value = attributeText(pair.value);
      return value === null ? [] : [{ oid: pair.type, value }];
    }),
  );
  const certificate = new x509.X509Certificate(asn);
  return {
    der,
    certificate,
    asn,
    issuer: encoding(asn.tbsCertificate.issuer),
    subject: encoding(asn.tbsCertificate.subject),
    subjectAttributes,
    notBefore: certificate.notBefore.getTime() / 1000,
    notAfter: certificate.notAfter.getTime() / 1000,
    spki: encoding(asn.tbsCertificate.subjectPublicKeyInfo),
    ...readExtensions(asn),
    verificationKeys: new Map(),
  };
}

/** Parses a DER certificate; throws CertificateError when it is not a well-formed X.509 v3 certificate. */
export function parseCertificate(der: Buffer): ParsedCertificate {
  try {
    return readCertificate(der);
  } catch (error) {
    throw new CertificateError(`malformed certificate: ${error instanceof Error ? error.message : 'unreadable'}`);
  }
}

/** Whether keyUsage is present and asserts `flag`. */
export function hasKeyUsage(cert: ParsedCertificate, flag: x509.KeyUsageFlags): boolean {
  return cert.keyUsages !== null && (cert.keyUsages & flag) !== 0;
}

/** CA:TRUE and keyCertSign, as every issuer in a chain must carry. */
export function isCertificateAuthority(cert: ParsedCertificate): boolean {
  return cert.basicConstraints?.ca === true && hasKeyUsage(cert, x509.KeyUsageFlags.keyCertSign);
}

/** The subject's public key (Ed25519 through the fast raw-key import, others as OpenSSL decodes the SPKI). */
export function certificatePublicKey(cert: ParsedCertificate): KeyObject {
  const ed25519 = ed25519RawFromSpki(cert.spki);
  return ed25519 === null ? createPublicKey({ key: cert.spki, format: 'der', type: 'spki' }) : ed25519KeyFromRaw(ed25519);
}

/** Signature algorithms accepted on certificates, and the issuer key type each needs. */
const SIGNATURE_ALGORITHMS: Record<string, string> = {
  [OID.ed25519]: 'ed25519',
  '1.2.840.10045.4.3.2': 'ec', // ecdsa-with-SHA256
  '1.2.840.10045.4.3.3': 'ec', // ecdsa-with-SHA384
  '1.2.840.113549.1.1.11': 'rsa', // sha256WithRSAEncryption
  '1.2.840.113549.1.1.12': 'rsa', // sha384WithRSAEncryption
  '1.2.840.113549.1.1.13': 'rsa', // sha512WithRSAEncryption
};

/** The issuer's key for `algorithm`, imported once (ParsedCertificate.verificationKeys). */
function verificationKey(issuer: ParsedCertificate, algorithm: x509.X509Certificate['signatureAlgorithm']): Promise<webcrypto.CryptoKey> {
  const params = { ...issuer.certificate.publicKey.algorithm, ...algorithm };
  const id = JSON.stringify(params);
  let key = issuer.verificationKeys.get(id);
  if (key === undefined) {
    key = issuer.certificate.publicKey.export(params, ['verify'], x509Crypto());
    issuer.verificationKeys.set(id, key);
  }
  return key;
}

/**
 * True when the key of `issuer` (of type `issuerKeyType`, as node:crypto names it) made the
 * signature on `cert` with an accepted algorithm; the library checks it over the exact signed bytes.
 */
export async function isSignedBy(cert: ParsedCertificate, issuer: ParsedCertificate, issuerKeyType: string | undefined): Promise<boolean> {
  const keyType = SIGNATURE_ALGORITHMS[cert.asn.signatureAlgorithm.algorithm];
  if (keyType === undefined || issuerKeyType !== keyType) return false;
  try {
    const publicKey = await verificationKey(issuer, cert.certificate.signatureAlgorithm);
    return await cert.certificate.verify({ publicKey, signatureOnly: true }, x509Crypto());
  } catch {
    return false;
  }
}
