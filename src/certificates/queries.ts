import type { Executor } from '../db/transaction.js';
import type { CertificateVerificationsTable } from './tables.js';
import type { Insertable, Selectable } from 'kysely';

export type VerificationRow = Selectable<CertificateVerificationsTable>;

/** Wrong checks a code survives; the one after the last is refused without looking. */
export const MAX_CHECK_ATTEMPTS = 5;

export async function isKeyVerified(db: Executor, userId: string, key: string): Promise<boolean> {
  const row = await db.selectFrom('verified_keys').select('user_id').where('user_id', '=', userId).where('key', '=', key).executeTakeFirst();
  return row !== undefined;
}

export async function markKeyVerified(db: Executor, userId: string, key: string, now: number): Promise<void> {
  await db
    .insertInto('verified_keys')
    .values({ user_id: userId, key, verified_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'key']).doUpdateSet({ verified_at: now }))
    .execute();
}

/** The user's checks still open at `now` (not expired, attempts left), newest first. */
export function pendingVerifications(db: Executor, userId: string, now: number): Promise<VerificationRow[]> {
  return db
    .selectFrom('certificate_verifications')
    .selectAll()
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .where('attempts', '<', MAX_CHECK_ATTEMPTS)
    .orderBy('created', 'desc')
    .execute();
}

export async function insertVerification(db: Executor, row: Insertable<CertificateVerificationsTable>): Promise<void> {
  await db.insertInto('certificate_verifications').values(row).execute();
}

/**
 * Spends one attempt of a code before it is checked, atomically, so concurrent guesses cannot
 * exceed the limit. False when the code is dead or gone.
 */
export async function takeAttempt(db: Executor, id: string): Promise<boolean> {
  const result = await db
    .updateTable('certificate_verifications')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('attempts', '<', MAX_CHECK_ATTEMPTS)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteVerification(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('certificate_verifications').where('id', '=', id).execute();
}

/** Checks of the user that can no longer succeed: expired or out of attempts. */
export async function deleteDeadVerifications(db: Executor, userId: string, now: number): Promise<void> {
  await db
    .deleteFrom('certificate_verifications')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('attempts', '>=', MAX_CHECK_ATTEMPTS)]))
    .execute();
}
