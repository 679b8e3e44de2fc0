import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import {
  DerError, TAG, contextTag, decodeBitString, decodeBoolean, decodeDirectoryString, decodeOid, decodeSmallInteger, decodeTime,
  expectTag, parseElement, readChildren, type DerElement,
} from './der.js';
import { ed25519KeyFromRaw, ed25519RawFromSpki } from './ed25519.js';

/**
 * Reads the parts of an X.509 v3 certificate (RFC 5280) that chain verification judges, straight
 * from its DER, and checks certificate signatures with node:crypto (OpenSSL). Parsing is strict:
 * a certificate this module cannot read completely is refused, never half-understood.
 */

export const OID = {
  ed25519: '1.3.101.112',
  commonName: '2.5.4.3',
  userId: '0.9.2342.19200300.100.1.1',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  anyExtendedKeyUsage: '2.5.29.37.0',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** Bit numbers of the keyUsage BIT STRING (RFC 5280 §4.2.1.3). */
export const KEY_USAGE = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 } as const;

export class CertificateError extends Error {
  override name = 'CertificateError';
}

export interface CertificateExtension {
  critical: boolean;
  value: Buffer;
}

export interface ParsedCertificate {
  der: Buffer;
  /** The exact signed bytes (TBSCertificate). */
  tbs: Buffer;
  signatureAlgorithm: string;
  signature: Buffer;
  /** Raw encodings of the issuer and subject names, compared byte for byte when chaining. */
  issuer: Buffer;
  subject: Buffer;
  /** Subject attributes whose value is a string, in order. */
  subjectAttributes: { oid: string; value: string }[];
  /** Unix seconds. */
  notBefore: number;
  notAfter: number;
  /** DER SubjectPublicKeyInfo. */
  spki: Buffer;
  extensions: Map<string, CertificateExtension>;
}

function readAlgorithm(element: DerElement | undefined): string {
  const [oid] = readChildren(expectTag(element, TAG.SEQUENCE).value);
  return decodeOid(expectTag(oid, TAG.OID));
}

function readNameAttributes(name: DerElement): { oid: string; value: string }[] {
  const attributes: { oid: string; value: string }[] = [];
  for (const rdn of readChildren(name.value)) {
    for (const pair of readChildren(expectTag(rdn, TAG.SET).value)) {
      const [type, value] = readChildren(expectTag(pair, TAG.SEQUENCE).value);
      const oid = decodeOid(expectTag(type, TAG.OID));
      if (value === undefined) throw new DerError('attribute without value');
      try {
        attributes.push({ oid, value: decodeDirectoryString(value) });
      } catch {
        // Non-string attributes (x500UniqueIdentifier is a BIT STRING) are not needed here.
      }
    }
  }
  return attributes;
}

function readExtensions(element: DerElement | undefined): Map<string, CertificateExtension> {
  const extensions = new Map<string, CertificateExtension>();
  if (element === undefined) return extensions;
  const list = parseElement(expectTag(element, contextTag(3)).value, TAG.SEQUENCE);
  for (const entry of readChildren(list.value)) {
    const parts = readChildren(expectTag(entry, TAG.SEQUENCE).value);
    if (parts.length < 2 || parts.length > 3) throw new DerError('malformed extension');
    const oid = decodeOid(expectTag(parts[0], TAG.OID));
    const critical = parts.length === 3 ? decodeBoolean(parts[1]!) : false;
    const value = expectTag(parts[parts.length - 1], TAG.OCTET_STRING).value;
    if (extensions.has(oid)) throw new DerError(`duplicate extension ${oid}`);
    extensions.set(oid, { critical, value });
  }
  return extensions;
}

function parseTbs(tbs: DerElement): Omit<ParsedCertificate, 'der' | 'tbs' | 'signatureAlgorithm' | 'signature'> & { innerAlgorithm: Buffer } {
  const fields = readChildren(tbs.value);
  const version = fields.shift();
  // Only v3: extensions carry the CA and key-usage constraints that verification depends on.
  if (version?.tag !== contextTag(0) || decodeSmallInteger(parseElement(version.value)) !== 2) throw new DerError('not an X.509 v3 certificate');
  expectTag(fields.shift(), TAG.INTEGER);
  const innerAlgorithm = expectTag(fields.shift(), TAG.SEQUENCE).raw;
  const issuer = expectTag(fields.shift(), TAG.SEQUENCE);
  const [notBefore, notAfter, ...extra] = readChildren(expectTag(fields.shift(), TAG.SEQUENCE).value);
  if (notBefore === undefined || notAfter === undefined || extra.length > 0) throw new DerError('malformed validity');
  const subject = expectTag(fields.shift(), TAG.SEQUENCE);
  const spki = expectTag(fields.shift(), TAG.SEQUENCE).raw;
  // Optional issuerUniqueID [1] and subjectUniqueID [2] (implicit, primitive), then extensions [3].
  while (fields[0]?.tag === 0x81 || fields[0]?.tag === 0x82) fields.shift();
  const extensions = readExtensions(fields.shift());
  if (fields.length > 0) throw new DerError('unexpected fields in certificate');
  return {
    innerAlgorithm,
    issuer: issuer.raw,
    subject: subject.raw,
    subjectAttributes: readNameAttributes(subject),
    notBefore: decodeTime(notBefore),
    notAfter: decodeTime(notAfter),
    spki,
    extensions,
  };
}

/** Parses a DER certificate; throws CertificateError when it is not a well-formed X.509 v3 certificate. */
export function parseCertificate(der: Buffer): ParsedCertificate {
  try {
    const certificate = parseElement(der, TAG.SEQUENCE);
    const [tbs, algorithm, signatureValue, ...extra] = readChildren(certificate.value);
    if (extra.length > 0) throw new DerError('unexpected fields in certificate');
    const { innerAlgorithm, ...rest } = parseTbs(expectTag(tbs, TAG.SEQUENCE));
    // RFC 5280 §4.1.1.2: the algorithm inside the signed part must match the outer one.
    if (!innerAlgorithm.equals(expectTag(algorithm, TAG.SEQUENCE).raw)) throw new DerError('signature algorithm mismatch');
    const signature = decodeBitString(expectTag(signatureValue, TAG.BIT_STRING));
    if (signature.unusedBits !== 0) throw new DerError('malformed signature');
    return { der, tbs: tbs!.raw, signatureAlgorithm: readAlgorithm(algorithm), signature: signature.bytes, ...rest };
  } catch (error) {
    if (error instanceof DerError) throw new CertificateError(`malformed certificate: ${error.message}`);
    throw error;
  }
}

/** basicConstraints, or null when the extension is absent. */
export function basicConstraints(cert: ParsedCertificate): { ca: boolean; pathLength: number | null } | null {
  const extension = cert.extensions.get(OID.basicConstraints);
  if (extension === undefined) return null;
  const items = readChildren(parseElement(extension.value, TAG.SEQUENCE).value);
  const ca = items[0]?.tag === TAG.BOOLEAN ? decodeBoolean(items.shift()!) : false;
  const lengthElement = items.shift();
  if (items.length > 0) throw new DerError('malformed basicConstraints');
  return { ca, pathLength: lengthElement === undefined ? null : decodeSmallInteger(lengthElement) };
}

/** Whether keyUsage is present and asserts bit `bit` (see KEY_USAGE). */
export function hasKeyUsage(cert: ParsedCertificate, bit: number): boolean {
  const extension = cert.extensions.get(OID.keyUsage);
  if (extension === undefined) return false;
  const { bytes } = decodeBitString(parseElement(extension.value));
  const byte = bytes[bit >> 3] ?? 0;
  return (byte & (0x80 >> (bit & 7))) !== 0;
}

/** extendedKeyUsage purposes, or null when the extension is absent (meaning unrestricted). */
export function extendedKeyUsages(cert: ParsedCertificate): string[] | null {
  const extension = cert.extensions.get(OID.extKeyUsage);
  if (extension === undefined) return null;
  return readChildren(parseElement(extension.value, TAG.SEQUENCE).value).map(decodeOid);
}

/** The subject's public key (Ed25519 through the fast raw-key import, others as OpenSSL decodes the SPKI). */
export function certificatePublicKey(cert: ParsedCertificate): KeyObject {
  const ed25519 = ed25519RawFromSpki(cert.spki);
  return ed25519 === null ? createPublicKey({ key: cert.spki, format: 'der', type: 'spki' }) : ed25519KeyFromRaw(ed25519);
}

/** Signature algorithms accepted on certificates, and the issuer key type each needs. */
const SIGNATURE_ALGORITHMS: Record<string, { keyType: string; digest: string | null }> = {
  [OID.ed25519]: { keyType: 'ed25519', digest: null },
  '1.2.840.10045.4.3.2': { keyType: 'ec', digest: 'sha256' },
  '1.2.840.10045.4.3.3': { keyType: 'ec', digest: 'sha384' },
  '1.2.840.113549.1.1.11': { keyType: 'rsa', digest: 'sha256' },
  '1.2.840.113549.1.1.12': { keyType: 'rsa', digest: 'sha384' },
  '1.2.840.113549.1.1.13': { keyType: 'rsa', digest: 'sha512' },
};

/** True when `issuerKey` made the signature on `cert` with an accepted algorithm. */
export function isSignedBy(cert: ParsedCertificate, issuerKey: KeyObject): boolean {
  const algorithm = SIGNATURE_ALGORITHMS[cert.signatureAlgorithm];
  if (algorithm === undefined || issuerKey.asymmetricKeyType !== algorithm.keyType) return false;
  try {
    return verify(algorithm.digest, cert.tbs, issuerKey, cert.signature);
  } catch {
    return false;
  }
}
