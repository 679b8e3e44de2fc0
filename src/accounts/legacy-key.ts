import type { AppContext } from '../context.js';
import { generateLegacyKeyPair } from '../crypto/legacy-keys.js';
import { inTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { accountWriter } from './live-sessions.js';
import { findUserById, setLegacyKeyIfMissing, type UserRow } from './queries.js';

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

/**
 * Stores `key` as the user's legacy key unless they have one already; true when stored, and then
 * announced (`keyChanged`): the configs of the user's locks change too, since a lock checks RS256
 * tokens against the key its config lists for the user.
 */
export function storeLegacyKeyIfMissing(ctx: AppContext, userId: string, key: SealedLegacyKey): Promise<boolean> {
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const stored = await setLegacyKeyIfMissing(accountWriter(ctx, uow), userId, { public_key: key.public_key, private_key_sealed: key.private_key_sealed, updated: ctx.now() });
    if (stored) await ctx.accountEvents.announce('keyChanged', uow, { userId });
    return stored;
  });
}

/**
 * The user's legacy public key, made now if they have none (an invitee, a directory lookup). Of
 * two made at once only the first is stored, and both callers answer that one.
 */
export async function ensureLegacyPublicKey(ctx: AppContext, user: Pick<UserRow, 'id' | 'public_key'>): Promise<string> {
  if (user.public_key) return user.public_key;
  const key = await createLegacyKey(ctx, user.id);
  if (await storeLegacyKeyIfMissing(ctx, user.id, key)) return key.public_key;
  // Another request stored its key first: answer that one.
  const stored = await findUserById(ctx.db.kysely, user.id);
  if (!stored?.public_key) throw errors.notFound('user');
  return stored.public_key;
}
