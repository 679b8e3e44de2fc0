import type { AppContext } from '../context.js';
import { generateLegacyKeyPair } from '../crypto/legacy-keys.js';

export interface SealedLegacyKey {
  public_key: string;
  private_key_sealed: string;
  /** Base64 PKCS#8, to hand to the user once in the response; never stored in this form. */
  privateKey: string;
}

const sealContext = (userId: string) => `user-private-key:${userId}`;

/** Makes a legacy RSA pair for `userId`, with the private key sealed for storage. */
export async function createLegacyKey(ctx: AppContext, userId: string): Promise<SealedLegacyKey> {
  const { publicKey, privateKeyDer } = await generateLegacyKeyPair();
  return { public_key: publicKey, private_key_sealed: ctx.box.seal(privateKeyDer, sealContext(userId)), privateKey: privateKeyDer.toString('base64') };
}

/** Seals a Base64 PKCS#8 private key for storage on the row of `userId`. */
export function sealLegacyPrivateKey(ctx: AppContext, userId: string, privateKeyBase64: string): string {
  return ctx.box.seal(Buffer.from(privateKeyBase64, 'base64'), sealContext(userId));
}

export function openLegacyPrivateKey(ctx: AppContext, userId: string, sealed: string): string {
  return ctx.box.open(sealed, sealContext(userId)).toString('base64');
}
