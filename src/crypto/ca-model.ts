import 'reflect-metadata';
import type * as x509 from '@peculiar/x509';
import type { webcrypto } from 'node:crypto';
import { certificatePublicKey, isCertificateAuthority, isSignedBy, parseCertificate } from './certificate.js';

export { x509Crypto } from './certificate.js';

/** The in-memory shape of our CA (pki.ts creates and uses it, ca-store.ts saves and loads it). */

/** Algorithms for importing and signing with a CA key. */
export interface CaAlgorithm {
  importParams: webcrypto.AlgorithmIdentifier | webcrypto.EcKeyImportParams;
  signingAlgorithm: webcrypto.AlgorithmIdentifier | webcrypto.EcdsaParams;
}

export const ED25519_CA: CaAlgorithm = { importParams: { name: 'Ed25519' }, signingAlgorithm: { name: 'Ed25519' } };

/** One CA: its certificate (parsed and DER) and private key (a CryptoKey: logging it shows no key material). */
export interface CaCertificate {
  certificate: x509.X509Certificate;
  der: Buffer;
  privateKey: webcrypto.CryptoKey;
  algorithm: CaAlgorithm;
}

export interface CertificateAuthority {
  root: CaCertificate;
  intermediate: CaCertificate;
}

/** Checks that `child` is a CA certificate signed by `parent`; throws a plain Error otherwise. */
export async function assertCaLink(parentDer: Buffer, childDer: Buffer): Promise<void> {
  const parent = parseCertificate(parentDer);
  const child = parseCertificate(childDer);
  if (!isCertificateAuthority(child)) throw new Error('certificate authority: certificate is not a CA with keyCertSign');
  if (!child.issuer.equals(parent.subject) || !(await isSignedBy(child, parent, certificatePublicKey(parent).asymmetricKeyType))) {
    throw new Error('certificate authority: intermediate is not signed by the root');
  }
}
