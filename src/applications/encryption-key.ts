import { createPrivateKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { newId } from '../crypto/random.js';
import type { SecretBox } from '../crypto/secret-box.js';

const generate = promisify(generateKeyPair);

/** The algorithms an application's `identity` JWE must use (spec: directory query rule 3). */
export const IDENTITY_JWE = { alg: 'RSA-OAEP-256', enc: 'A256GCM' } as const;

const sealContext = (applicationId: string) => `application-key:${applicationId}`;

export interface ApplicationEncryptionKey {
  /** The public half as a JWK (kid, alg RSA-OAEP-256, use enc), shown in the application record. */
  publicJwk: Record<string, string>;
  /** PKCS#8 DER of the private half, sealed for storage; never leaves the service. */
  privateSealed: string;
}

/** A fresh RSA-2048 key pair for one application's identity JWEs. */
export async function generateEncryptionKey(box: SecretBox, applicationId: string): Promise<ApplicationEncryptionKey> {
  const { publicKey, privateKey } = await generate('rsa', { modulusLength: 2048 });
  const { n, e } = publicKey.export({ format: 'jwk' });
  return {
    publicJwk: { kty: 'RSA', kid: newId(), use: 'enc', alg: IDENTITY_JWE.alg, n: n!, e: e! },
    privateSealed: box.seal(privateKey.export({ format: 'der', type: 'pkcs8' }), sealContext(applicationId)),
  };
}

export function openEncryptionKey(box: SecretBox, applicationId: string, sealed: string): KeyObject {
  return createPrivateKey({ key: box.open(sealed, sealContext(applicationId)), format: 'der', type: 'pkcs8' });
}
