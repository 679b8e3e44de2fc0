import type { AppContext } from '../context.js';
import { decoyPasswordHash, verifyPassword } from '../crypto/passwords.js';
import { inTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { createLegacyKey, openLegacyPrivateKey, storeLegacyKeyIfMissing } from './legacy-key.js';
import { clearLoginAttempt, countLoginAttempt, loginAttempt } from './login-limits.js';
import { DIRECT_NAMESPACE, findUserByEmail, findUserById, type UserRow } from './queries.js';
import { issueTokenPair, openSession, type TokenPair } from './sessions.js';

export interface LoggedIn extends TokenPair {
  publicKey?: string;
  privateKey?: string;
}

/**
 * Password login for direct users. Failures count against the account from the caller's address
 * (`address`: its addressKey), with a looser ceiling across addresses (login-limits.ts); an
 * unknown email costs the same time as a wrong password.
 */
export async function login(ctx: AppContext, input: { email: string; password: string; withKeys: boolean; address: string }): Promise<LoggedIn> {
  const attempt = loginAttempt(input.email, input.address);
  // A success clears the count, which leaves only failures counted.
  await countLoginAttempt(ctx, attempt);
  const user = await findUserByEmail(ctx.db.kysely, DIRECT_NAMESPACE, input.email);
  const hash = user?.password_hash ?? (await decoyPasswordHash(ctx.passwordHashMemoryKiB));
  const valid = (await verifyPassword(hash, input.password)) && user !== undefined && user.password_hash !== null && user.orphan === 0;
  if (!valid) throw errors.badCredentials();
  await clearLoginAttempt(ctx, attempt);

  const key = input.withKeys ? await legacyKeyFor(ctx, user) : null;
  const session = await inTransaction(ctx.db, ctx.logger, ({ db }) => openSession(ctx, db, user.id));
  const tokens = await issueTokenPair(ctx, user, session);
  return key ? { ...tokens, ...key } : tokens;
}

/** v1 login hands out the legacy key; an account registered with v3 gets one on first v1 login. */
async function legacyKeyFor(ctx: AppContext, user: UserRow): Promise<{ publicKey: string; privateKey: string }> {
  if (user.public_key && user.private_key_sealed) {
    return { publicKey: user.public_key, privateKey: openLegacyPrivateKey(ctx, user.id, user.private_key_sealed) };
  }
  const key = await createLegacyKey(ctx, user.id);
  if (await storeLegacyKeyIfMissing(ctx, user.id, key)) {
    return { publicKey: key.public_key, privateKey: key.privateKey };
  }
  // A concurrent v1 login stored its key first: everyone gets that one.
  const stored = await findUserById(ctx.db.kysely, user.id);
  if (!stored?.public_key || !stored.private_key_sealed) throw errors.unauthenticated();
  return { publicKey: stored.public_key, privateKey: openLegacyPrivateKey(ctx, user.id, stored.private_key_sealed) };
}
