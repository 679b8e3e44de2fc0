import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { basicConstraints, certificatePublicKey, hasKeyUsage, isSignedBy, KEY_USAGE, parseCertificate } from './certificate.js';

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

let providerSet = false;

/** The WebCrypto that @peculiar/x509 uses, registered as its default on first use (not at import). */
export function x509Crypto(): webcrypto.Crypto {
  if (!providerSet) {
    x509.cryptoProvider.set(webcrypto);
    providerSet = true;
  }
  return webcrypto;
}

/** Checks that `child` is a CA certificate signed by `parent`; throws a plain Error otherwise. */
export function assertCaLink(parentDer: Buffer, childDer: Buffer): void {
  const parent = parseCertificate(parentDer);
  const child = parseCertificate(childDer);
  const isCa = basicConstraints(child)?.ca === true && hasKeyUsage(child, KEY_USAGE.keyCertSign);
  if (!isCa) throw new Error('certificate authority: certificate is not a CA with keyCertSign');
  if (!child.issuer.equals(parent.subject) || !isSignedBy(child, certificatePublicKey(parent))) {
    throw new Error('certificate authority: intermediate is not signed by the root');
  }
}
