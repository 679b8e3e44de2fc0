import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

/** The legacy (v1) RSA-2048 key pair: Base64 DER SPKI public key and PKCS#8 private key. */
export async function generateLegacyKeyPair(): Promise<{ publicKey: string; privateKeyDer: Buffer }> {
  const { publicKey, privateKey } = await generate('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  });
  return { publicKey: publicKey.toString('base64'), privateKeyDer: privateKey };
}
