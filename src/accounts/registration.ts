import type { AppContext } from '../context.js';
import { hashPassword } from '../crypto/passwords.js';
import { newPublicId } from '../crypto/random.js';
import { isUniqueViolation } from '../db/errors.js';
import { inTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { prepareVerificationEmail } from './emails.js';
import { createLegacyKey, openLegacyPrivateKey, sealLegacyPrivateKey, type SealedLegacyKey } from './legacy-key.js';
import { accountWriter } from './live-sessions.js';
import { registrationKeyOf, rememberRegistrationKey } from './registration-key.js';
import { DIRECT_NAMESPACE, deleteUser, findUserByEmail, findUserById, insertUser, normaliseEmail, updateUser, type AccountWriter, type UserRow } from './queries.js';
import { issueTokenPair, openSession, type TokenPair } from './sessions.js';

export interface RegistrationInput {
  email: string;
  password: string;
  displayName?: string | undefined;
  /** 1, 2 or 3: v1 takes over a pending invite, v2/v3 refuse it unless `force` or `acceptInvite`; v3 makes no key. */
  version: 1 | 2 | 3;
  /** Discards a pending invite of the email (and its shares). */
  force: boolean;
  /** v2/v3 take a pending invite over as v1 does (the console registers so: docs/decisions.md, issue 29). */
  acceptInvite?: boolean;
  /** An Ed25519 public key (Base64) the first certificate request may use without a secondary check. */
  ephemeralKey?: string | undefined;
}

export interface Registered extends TokenPair {
  publicKey?: string;
  privateKey?: string;
}

/** Registers a direct user (decisions §2: pending invites, legacy keys, email verification). */
export async function register(ctx: AppContext, input: RegistrationInput): Promise<Registered> {
  const userId = newPublicId();
  // Read before any work: a malformed key is a 400 and nothing is written.
  const registrationKey = input.ephemeralKey === undefined ? null : registrationKeyOf(input.ephemeralKey);
  if (input.force && input.acceptInvite === true) throw errors.validation('force and acceptInvite exclude each other: discard the invite or take it over');
  const [passwordHash, legacyKey] = await Promise.all([
    hashPassword(input.password, ctx.passwordHashMemoryKiB),
    input.version < 3 ? createLegacyKey(ctx, userId) : Promise.resolve(null),
  ]);
  try {
    const outcome = await inTransaction(ctx.db, ctx.logger, async (uow) => {
      // FOR UPDATE (PostgreSQL): two registrations racing for one invite must not both take it over.
      const existing = await findUserByEmail(uow.db, DIRECT_NAMESPACE, input.email, { forUpdate: ctx.db.dialect === 'postgres' });
      if (existing && existing.orphan === 0) throw errors.emailTaken();
      const now = ctx.now();
      let id = userId;
      let key: LegacyKeyPair | null = legacyKey ? { publicKey: legacyKey.public_key, privateKey: legacyKey.privateKey } : null;
      const takesOverInvite = existing !== undefined && (input.version === 1 || input.acceptInvite === true);
      if (takesOverInvite) {
        id = existing.id;
        key = await takeOverInvite(ctx, accountWriter(ctx, uow), existing, { input, passwordHash, legacyKey, now });
      } else {
        if (existing && !input.force) throw errors.pendingInvite();
        if (existing) {
          await ctx.accountEvents.announce('inviteDiscarded', uow, { inviteId: existing.id, registrantId: id });
          await deleteUser(accountWriter(ctx, uow), existing.id);
        }
        await insertUser(uow.db, newUserRow(id, input, passwordHash, legacyKey, now));
      }
      // Typing an address proves nothing: the shares of an invite taken over wait until the email is verified (src/sharing/).
      await ctx.accountEvents.announce('registered', uow, { userId: id, tookOverInvite: takesOverInvite });
      if (registrationKey !== null) await rememberRegistrationKey(uow.db, id, registrationKey, now);
      const session = await openSession(ctx, uow.db, id);
      const sendEmail = await prepareVerificationEmail(ctx, uow.db, { id, namespace: DIRECT_NAMESPACE, email: input.email.trim(), displayName: input.displayName ?? null });
      uow.onCommit(sendEmail);
      const user = await findUserById(uow.db, id);
      return { user: user!, session, key };
    });
    const tokens = await issueTokenPair(ctx, outcome.user, outcome.session);
    return input.version < 3 && outcome.key ? { ...tokens, ...outcome.key } : tokens;
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.emailTaken();
    throw err;
  }
}

interface LegacyKeyPair {
  publicKey: string;
  privateKey: string;
}

/**
 * Registration v1 (or v2/v3 with `acceptInvite`) with the email of a pending invite: the account keeps the invite's id, key and
 * the shares made to it (held until the email is verified: src/sharing/held-shares.ts). An invite
 * without a key gets the one just generated, sealed for its id.
 */
async function takeOverInvite(
  ctx: AppContext,
  writer: AccountWriter,
  invite: UserRow,
  args: { input: RegistrationInput; passwordHash: string; legacyKey: SealedLegacyKey | null; now: number },
): Promise<LegacyKeyPair | null> {
  const { input, passwordHash, legacyKey, now } = args;
  const changes = { password_hash: passwordHash, display_name: input.displayName ?? invite.display_name, orphan: 0 as const, email: input.email.trim(), updated: now };
  if (invite.public_key && invite.private_key_sealed) {
    await updateUser(writer, invite.id, changes);
    return { publicKey: invite.public_key, privateKey: openLegacyPrivateKey(ctx, invite.id, invite.private_key_sealed) };
  }
  if (!legacyKey) {
    await updateUser(writer, invite.id, changes);
    return null;
  }
  const sealed = sealLegacyPrivateKey(ctx, invite.id, legacyKey.privateKey);
  await updateUser(writer, invite.id, { ...changes, public_key: legacyKey.public_key, private_key_sealed: sealed });
  return { publicKey: legacyKey.public_key, privateKey: legacyKey.privateKey };
}

function newUserRow(id: string, input: RegistrationInput, passwordHash: string, key: SealedLegacyKey | null, now: number) {
  return {
    id,
    namespace: DIRECT_NAMESPACE,
    external_id: null,
    email: input.email.trim(),
    email_normalised: normaliseEmail(input.email),
    email_verified: 0 as const,
    telephone: null,
    telephone_verified: 0 as const,
    display_name: input.displayName ?? null,
    password_hash: passwordHash,
    public_key: key?.public_key ?? null,
    private_key_sealed: key?.private_key_sealed ?? null,
    orphan: 0 as const,
    created: now,
    updated: now,
  };
}
