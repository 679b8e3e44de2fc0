import { ed25519RawFromKey, parseEd25519PublicKey } from '../crypto/ed25519.js';
import type { Executor } from '../db/transaction.js';

/**
 * The ephemeral key sent with a registration (the SDK's `ephemeralKey`): the account is new and
 * the key came with its password, so the first certificate request with that key needs no
 * secondary check, whatever CERT_CHECK says (docs/decisions.md). Single use.
 */

/** The key's raw 32 bytes in standard Base64, or a 400 when it is not an Ed25519 public key. */
export function registrationKeyOf(ephemeralKey: string): string {
  return ed25519RawFromKey(parseEd25519PublicKey(ephemeralKey)).toString('base64');
}

export async function rememberRegistrationKey(db: Executor, userId: string, rawKey: string, now: number): Promise<void> {
  await db
    .insertInto('registration_keys')
    .values({ user_id: userId, key: rawKey, created: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ key: rawKey, created: now }))
    .execute();
}

/** True once: when `rawKey` is the key `userId` registered with and it was not used yet. */
export async function takeRegistrationKey(db: Executor, userId: string, rawKey: string): Promise<boolean> {
  const deleted = await db.deleteFrom('registration_keys').where('user_id', '=', userId).where('key', '=', rawKey).executeTakeFirst();
  return Number(deleted.numDeletedRows) === 1;
}
