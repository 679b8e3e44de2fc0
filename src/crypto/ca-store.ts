import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { decodeBase64Any } from './base64.js';
import { parseCertificate } from './certificate.js';
import { assertCaLink, ED25519_CA, x509Crypto, type CaAlgorithm, type CaCertificate, type CertificateAuthority } from './ca-model.js';

/**
 * The CA as plain JSON (Base64 DER strings), for the caller to encrypt and keep in the database,
 * or for an operator to supply their own. It holds private keys: never log it.
 */
export interface ExportedCertificateAuthority {
  version: 1;
  rootCertificate: string;
  rootPrivateKey: string;
  intermediateCertificate: string;
  intermediatePrivateKey: string;
}

async function exportKey(key: CaCertificate['privateKey']): Promise<string> {
  return Buffer.from(await x509Crypto().subtle.exportKey('pkcs8', key)).toString('base64');
}

/** The CA as Base64 DER: certificates, and private keys as PKCS#8. */
export async function exportCertificateAuthority(ca: CertificateAuthority): Promise<ExportedCertificateAuthority> {
  return {
    version: 1,
    rootCertificate: ca.root.der.toString('base64'),
    rootPrivateKey: await exportKey(ca.root.privateKey),
    intermediateCertificate: ca.intermediate.der.toString('base64'),
    intermediatePrivateKey: await exportKey(ca.intermediate.privateKey),
  };
}

function field(value: Record<string, unknown>, name: keyof ExportedCertificateAuthority): Buffer {
  const text = value[name];
  const der = typeof text === 'string' ? decodeBase64Any(text.replace(/\s+/g, '')) : null;
  if (der === null || der.length === 0) throw new Error(`certificate authority: ${name} must be Base64 DER`);
  return der;
}

/** Ed25519, or ECDSA on P-256/P-384 with the matching hash, chosen from the private key itself. */
function algorithmOf(pkcs8: Buffer): CaAlgorithm {
  const key = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType === 'ed25519') return ED25519_CA;
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType === 'ec' && (curve === 'prime256v1' || curve === 'secp384r1')) {
    const [namedCurve, hash] = curve === 'prime256v1' ? ['P-256', 'SHA-256'] : ['P-384', 'SHA-384'];
    return { importParams: { name: 'ECDSA', namedCurve }, signingAlgorithm: { name: 'ECDSA', hash } };
  }
  throw new Error('certificate authority: keys must be Ed25519 or ECDSA P-256/P-384');
}

async function importCa(certificateDer: Buffer, pkcs8: Buffer): Promise<CaCertificate> {
  const algorithm = algorithmOf(pkcs8);
  // The private key must belong to the certificate, or every certificate issued would be invalid.
  const derivedSpki = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'der', type: 'spki' });
  if (!derivedSpki.equals(parseCertificate(certificateDer).spki)) throw new Error('certificate authority: private key does not match its certificate');
  const privateKey = await x509Crypto().subtle.importKey('pkcs8', pkcs8, algorithm.importParams, true, ['sign']);
  return { certificate: new x509.X509Certificate(certificateDer), der: certificateDer, privateKey, algorithm };
}

/**
 * Reads an exported CA back. Checks that each key matches its certificate, that both are CA
 * certificates and that the root signed the intermediate; throws a plain Error (a configuration
 * fault) otherwise. The messages never include key material.
 */
export async function importCertificateAuthority(value: unknown): Promise<CertificateAuthority> {
  if (typeof value !== 'object' || value === null || (value as { version?: unknown }).version !== 1) {
    throw new Error('certificate authority: expected an exported CA of version 1');
  }
  const record = value as Record<string, unknown>;
  const rootDer = field(record, 'rootCertificate');
  const intermediateDer = field(record, 'intermediateCertificate');
  try {
    await assertCaLink(rootDer, rootDer);
    await assertCaLink(rootDer, intermediateDer);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('certificate authority:')) throw error;
    throw new Error('certificate authority: certificates cannot be read');
  }
  return {
    root: await importCa(rootDer, field(record, 'rootPrivateKey')),
    intermediate: await importCa(intermediateDer, field(record, 'intermediatePrivateKey')),
  };
}
