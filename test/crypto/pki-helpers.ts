import 'reflect-metadata';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import * as x509 from '@peculiar/x509';
import { generateKeyPairSync, webcrypto, type KeyObject } from 'node:crypto';
import { x509Crypto, type CaCertificate } from '../../src/crypto/pki.js';

/** Builders for certificates our issuer would never make, to prove the verifier refuses them. */

export const DAY = 24 * 3600;

export interface CraftOptions {
  subjectCn: string;
  /** The certificate and key that sign; omit for self-signed with `keys`. */
  issuer: { certificate: x509.X509Certificate; privateKey: webcrypto.CryptoKey; signingAlgorithm?: webcrypto.AlgorithmIdentifier | webcrypto.EcdsaParams };
  publicKey: KeyObject;
  ca: boolean;
  pathLength?: number;
  keyUsage: x509.KeyUsageFlags;
  notBefore: number;
  notAfter: number;
  extraExtensions?: x509.Extension[];
  uid?: string;
}

/** A certificate with exactly the given properties, as Base64 DER. */
export async function craftCertificate(options: CraftOptions): Promise<string> {
  const crypto = x509Crypto();
  const subject: x509.JsonName = [{ '2.5.4.3': [options.subjectCn] }];
  if (options.uid !== undefined) subject.push({ '0.9.2342.19200300.100.1.1': [options.uid] });
  const certificate = await x509.X509CertificateGenerator.create(
    {
      subject,
      issuer: options.issuer.certificate.subjectName,
      publicKey: options.publicKey.export({ format: 'der', type: 'spki' }),
      signingKey: options.issuer.privateKey,
      signingAlgorithm: options.issuer.signingAlgorithm ?? { name: 'Ed25519' },
      notBefore: new Date(options.notBefore * 1000),
      notAfter: new Date(options.notAfter * 1000),
      extensions: [
        new x509.BasicConstraintsExtension(options.ca, options.pathLength, true),
        new x509.KeyUsagesExtension(options.keyUsage, true),
        ...(options.extraExtensions ?? []),
      ],
    },
    crypto,
  );
  return Buffer.from(certificate.rawData).toString('base64');
}

/** An Ed25519 key pair as KeyObjects plus the private key as a WebCrypto signing key. */
export async function ed25519Pair(): Promise<{ publicKey: KeyObject; privateKey: KeyObject; signingKey: webcrypto.CryptoKey }> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const signingKey = await webcrypto.subtle.importKey('pkcs8', privateKey.export({ format: 'der', type: 'pkcs8' }), { name: 'Ed25519' }, false, ['sign']);
  return { publicKey, privateKey, signingKey };
}

export function asIssuer(ca: CaCertificate): CraftOptions['issuer'] {
  return { certificate: ca.certificate, privateKey: ca.privateKey };
}

/** A certificate object for a Base64 DER string, to sign further certificates under it. */
export function parsed(base64: string): x509.X509Certificate {
  return new x509.X509Certificate(Buffer.from(base64, 'base64'));
}

/**
 * A copy of the Ed25519-signed certificate `base64` whose signed part `mutate` changed, signed
 * again by `signingKey`: the verifier then refuses it for what changed, not for a broken signature.
 * `mutate` gets the TBSCertificate bytes (edit them in place, same length) or its ASN.1 structure.
 */
export async function resign(
  base64: string,
  signingKey: webcrypto.CryptoKey,
  mutate: { bytes?: (tbs: Buffer) => void; asn?: (certificate: Certificate) => void },
): Promise<string> {
  const certificate = AsnConvert.parse(Buffer.from(base64, 'base64'), Certificate);
  mutate.asn?.(certificate);
  const der = Buffer.from(AsnConvert.serialize(certificate));
  const tbsLength = AsnConvert.serialize(certificate.tbsCertificate).byteLength;
  // After the TBSCertificate: the AlgorithmIdentifier, then the BIT STRING of an Ed25519 signature (3 + 64 bytes).
  const tail = AsnConvert.serialize(certificate.signatureAlgorithm).byteLength + 3 + 64;
  const tbs = der.subarray(der.length - tbsLength - tail, der.length - tail);
  mutate.bytes?.(tbs);
  der.set(new Uint8Array(await webcrypto.subtle.sign({ name: 'Ed25519' }, signingKey, tbs)), der.length - 64);
  return der.toString('base64');
}
