import type { KeyObject } from 'node:crypto';
import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { decodeBase64Any } from '../crypto/base64.js';
import { ed25519RawFromKey, parseEd25519PublicKey, verifyEd25519 } from '../crypto/ed25519.js';
import { issueLeafCertificate } from '../crypto/pki.js';
import { newId, newNumericCode } from '../crypto/random.js';
import { inTransaction, type Executor } from '../db/transaction.js';
import { recordCertifiedKey } from '../accounts/certified-keys.js';
import { errors } from '../errors/catalogue.js';
import { takeRegistrationKey } from '../accounts/registration-key.js';
import { chooseRecipient, sendVerificationCode, type VerificationMethod } from './delivery.js';
import {
  deleteDeadVerifications, deleteVerification, insertVerification, isKeyVerified, markKeyVerified, pendingVerifications, takeAttempt,
} from './queries.js';

/**
 * Ephemeral keys (decisions §3): certify a user's Ed25519 key, after a secondary check when the
 * CERT_CHECK policy asks for one (423): a 6-digit code sent by email or text, whose signature by
 * the pending key proves both that the user received it and that they hold the key.
 */

export const CODE_TTL_SECONDS = 5 * 60;
export const MAX_PENDING_VERIFICATIONS = 3;
const CODE_DIGITS = 6;
const MAX_SIGNATURE_CHARS = 256;

export interface CertificateResponse {
  certificateChain: string[];
  userId: string;
}

interface EphemeralKey {
  key: KeyObject;
  /** Raw 32 bytes, standard Base64: how keys are stored. */
  raw: string;
}

function readKey(ephemeralKey: string): EphemeralKey {
  const key = parseEd25519PublicKey(ephemeralKey);
  return { key, raw: ed25519RawFromKey(key).toString('base64') };
}

async function issue(ctx: AppContext, db: Executor, userId: string, key: KeyObject): Promise<CertificateResponse> {
  const certificateChain = await issueLeafCertificate(ctx.pki.ca, { userId, publicKey: key, now: ctx.now() });
  // The user's publicKey in user lists when they have no legacy key (src/accounts/certified-keys.ts).
  await recordCertifiedKey(db, userId, key.export({ type: 'spki', format: 'der' }).toString('base64'), ctx.now());
  return { certificateChain, userId };
}

/**
 * POST /auth/certificate: the chain for the key, or 423 when the policy wants a check first. Taking
 * the registration key, marking the key verified and recording the certified key are one
 * transaction: a failure part-way leaves the registration key usable.
 */
export async function requestCertificate(ctx: AppContext, caller: Caller, ephemeralKey: string): Promise<CertificateResponse> {
  const { key, raw } = readKey(ephemeralKey);
  const policy = ctx.config.certCheck;
  const needsCheck = policy === 'always' || (policy === 'new-key' && !(await isKeyVerified(ctx.db.kysely, caller.userId, raw)));
  return inTransaction(ctx.db, ctx.logger, async ({ db }) => {
    if (needsCheck && !(await takeRegistrationKey(db, caller.userId, raw))) throw errors.secondaryCheckRequired();
    // The key given at registration counts as verified from its first use (docs/decisions.md).
    if (needsCheck && policy === 'new-key') await markKeyVerified(db, caller.userId, raw, ctx.now());
    return issue(ctx, db, caller.userId, key);
  });
}

/**
 * POST /auth/certificate/verify: stores a new code for the key (sealed; five minutes) and sends
 * it; answers the channel used. 400 no address for the channel; 429 when the user already has three checks open.
 */
export async function startVerification(ctx: AppContext, caller: Caller, ephemeralKey: string, method: VerificationMethod | undefined): Promise<{ method: VerificationMethod }> {
  const { raw } = readKey(ephemeralKey);
  await ctx.limits.verificationPerUser.consume(caller.userId);
  const code = newNumericCode(CODE_DIGITS);
  const id = newId();
  const now = ctx.now();
  const { recipient, namespace } = await inTransaction(ctx.db, ctx.logger, async (uow) => {
    // Serialises concurrent starts of one user on PostgreSQL, so the pending count holds.
    const lockUser = uow.db.selectFrom('users').select(['id', 'email', 'telephone', 'namespace']).where('id', '=', caller.userId);
    const account = await (ctx.db.dialect === 'postgres' ? lockUser.forUpdate() : lockUser).executeTakeFirst();
    if (!account) throw errors.unauthenticated();
    const chosen = chooseRecipient(caller, account, method);
    await deleteDeadVerifications(uow.db, caller.userId, now);
    const pending = await pendingVerifications(uow.db, caller.userId, now);
    if (pending.length >= MAX_PENDING_VERIFICATIONS) {
      const oldestExpiry = Math.min(...pending.map((p) => p.expires_at));
      throw errors.tooManyRequests(oldestExpiry - now);
    }
    await insertVerification(uow.db, {
      id, user_id: caller.userId, ephemeral_key: raw, code_sealed: ctx.box.seal(code, sealContext(id)),
      method: chosen.method, created: now, expires_at: now + CODE_TTL_SECONDS, attempts: 0,
    });
    return { recipient: chosen, namespace: account.namespace };
  });
  try {
    await sendVerificationCode(ctx, namespace, recipient, code, CODE_TTL_SECONDS);
  } catch (err) {
    // Undelivered: free the slot, and say so rather than leave the user waiting for nothing.
    await deleteVerification(ctx.db.kysely, id);
    ctx.logger.error({ err, method: recipient.method }, 'verification code could not be sent');
    throw errors.internal();
  }
  return { method: recipient.method };
}

const sealContext = (id: string) => `certificate-verification:${id}`;

function readSignature(verificationSignature: string): Buffer {
  const signature = verificationSignature.length <= MAX_SIGNATURE_CHARS ? decodeBase64Any(verificationSignature.trim()) : null;
  if (signature === null || signature.length === 0) throw errors.badRequest('verificationSignature must be a Base64 Ed25519 signature');
  return signature;
}

/**
 * POST /auth/certificate/check: finds the open check whose code the signature signs with that
 * check's key, marks the key verified and certifies it. Every try spends an attempt of each open
 * code first (five per code); 401 when none matches.
 */
export async function checkVerification(ctx: AppContext, caller: Caller, verificationSignature: string): Promise<CertificateResponse> {
  const signature = readSignature(verificationSignature);
  const now = ctx.now();
  for (const pending of await pendingVerifications(ctx.db.kysely, caller.userId, now)) {
    if (!(await takeAttempt(ctx.db.kysely, pending.id))) continue;
    const code = ctx.box.open(pending.code_sealed, sealContext(pending.id));
    const { key } = readKey(pending.ephemeral_key);
    if (!verifyEd25519(key, code, signature)) continue;
    return inTransaction(ctx.db, ctx.logger, async (uow) => {
      // Single use: only the request that deletes the row may certify with it.
      const deleted = await uow.db.deleteFrom('certificate_verifications').where('id', '=', pending.id).executeTakeFirst();
      if (Number(deleted.numDeletedRows) !== 1) throw errors.verificationFailed('verification code already used');
      await markKeyVerified(uow.db, caller.userId, pending.ephemeral_key, now);
      return issue(ctx, uow.db, caller.userId, key);
    });
  }
  throw errors.verificationFailed('verification signature does not match a pending code');
}

