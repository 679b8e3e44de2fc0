import type { Executor } from '../db/transaction.js';

/**
 * The Ed25519 key each user had certified last (POST /auth/certificate), kept so that user
 * lists can show a public key for users who never had a legacy RSA key (docs/decisions.md,
 * "SDK shapes": the SDK's user models require `publicKey`).
 */

/** Records `publicKey` (Base64 DER SPKI) as the user's latest certified key. */
export async function recordCertifiedKey(db: Executor, userId: string, publicKey: string, now: number): Promise<void> {
  await db
    .insertInto('certified_keys')
    .values({ user_id: userId, public_key: publicKey, certified_at: now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ public_key: publicKey, certified_at: now }))
    .execute();
}

/** The user's latest certified key, or null. */
export async function certifiedKeyOf(db: Executor, userId: string): Promise<string | null> {
  const row = await db.selectFrom('certified_keys').select('public_key').where('user_id', '=', userId).executeTakeFirst();
  return row?.public_key ?? null;
}
