import { isDeepStrictEqual } from 'node:util';
import type { Caller } from '../accounts/caller.js';
import type { AuditClient } from '../audit/log-format.js';
import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import { newNumericCode } from '../crypto/random.js';
import { isUniqueViolation } from '../db/errors.js';
import { inTransaction, type UnitOfWork } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { configChanged } from '../locks/config-changes.js';
import { currentConfigVersion } from '../locks/config.js';
import { lockRowsForUpdate } from '../locks/queries.js';
import type { AddCodeOperation } from '../operations/code-operations.js';
import { recordRefusal, refused } from '../operations/refusals.js';
import { consumeReplayKey } from '../operations/replay.js';
import { digestOf, sealContext } from './digits.js';
import { canManageCodes, codeOutlastsGranter, commonDigits, generatedLength, isTrivialCode } from './policy.js';
import { codeDigitsOf, codeLocksOf, digestTaken, findCode, findEnrolment, insertCode, insertCodeLock, type CodeLockRow, type CodeRow } from './queries.js';
import { readCode } from './reads.js';
import type { KeypadCode, NewCodeBody } from './schemas.js';
import { followKeypad } from './sync.js';
import { verifyCodeTokens, type VerifiedCodeToken } from './tokens.js';

/**
 * Granting, changing and revoking keypad codes (issue 30, docs/keypad-codes.md). Each change is
 * a signed operation per lock (src/keypad-codes/tokens.ts); the rows of all the request's locks,
 * the tokens' consumption, the audit entries and each lock's next config version are one
 * transaction, and the configs go out after commit. The digits are sealed with the
 * key-encryption key; equal live codes on one lock are found by a keyed digest.
 */

const GENERATE_ATTEMPTS = 50;

/** What a code grants, the same in every lock's ADD_CODE of one request. */
interface Grant {
  code: string;
  user: string | null;
  guest: string | null;
  start: number | null;
  end: number | null;
  schedule: AddCodeOperation['schedule'] | null;
  maxUses: number | null;
}

function grantOf(op: AddCodeOperation): Grant {
  return { code: op.code, user: op.user ?? null, guest: op.guest ?? null, start: op.start ?? null, end: op.end ?? null, schedule: op.schedule ?? null, maxUses: op.maxUses ?? null };
}

function sameGrant(verified: ReadonlyArray<VerifiedCodeToken<AddCodeOperation>>): Grant {
  const grants = verified.map((v) => grantOf(v.claims.operation));
  const first = grants[0]!;
  if (grants.some((grant) => !isDeepStrictEqual(grant, first))) throw errors.validation('tokens: every lock\'s ADD_CODE must grant the same code (holder, window, schedule, maximum uses)');
  return first;
}

function storedGrant(code: CodeRow): Omit<Grant, 'code' | 'user' | 'guest'> {
  return { start: code.starts_at, end: code.ends_at, schedule: code.schedule === null ? null : (JSON.parse(code.schedule) as Grant['schedule']), maxUses: code.max_uses };
}

/** A time-limited admin's grant past their own end is refused (403) and audited, as with shares. */
async function refuseOutlasting(ctx: AppContext, caller: Caller, verified: ReadonlyArray<VerifiedCodeToken<AddCodeOperation>>, grant: Grant, client: AuditClient): Promise<void> {
  for (const v of verified) {
    if (!codeOutlastsGranter(v.actor, grant)) continue;
    const error = errors.forbidden('an admin whose access ends cannot grant a code that ends later');
    await recordRefusal(ctx, refused(error, { lockId: v.lockId, type: 'CODE_ADDED', actorUserId: caller.userId, client }));
    throw error;
  }
}

/** The holder's membership of the lock (a member's code needs one): its `created` ties the code to it. */
async function holderSince(uow: UnitOfWork, lockId: string, grant: Grant): Promise<number | null> {
  if (grant.user === null) return null;
  const member = await findEnrolment(uow.db, lockId, grant.user);
  if (!member) throw errors.notFound('member');
  return member.created;
}

/**
 * The length a code on these locks may have (`length`: the one it has, or null to choose): within
 * what each lock's keypad takes, as it said (device protocol 1.5); a 400 naming a lock otherwise.
 */
async function fittingLength(uow: UnitOfWork, lockIds: readonly string[], length: number | null): Promise<number> {
  const locks = await codeDigitsOf(uow.db, lockIds);
  const range = commonDigits(locks.map((lock) => lock.digits));
  if (length !== null && range !== null && length >= range.min && length <= range.max) return length;
  if (length === null && range !== null) return generatedLength(range);
  const narrow = locks.find((lock) => lock.digits !== null && (length === null || length < lock.digits.min || length > lock.digits.max)) ?? locks.find((lock) => lock.digits !== null);
  if (narrow === undefined || narrow.digits === null) throw errors.validation('digits: no length fits every one of these locks');
  throw errors.validation(`digits: lock ${narrow.lockId} takes codes of ${narrow.digits.min} to ${narrow.digits.max} digits`);
}

/** Digits free on every lock: the typed ones (409 when one lock has them live), or newly drawn. */
async function chooseDigits(ctx: AppContext, uow: UnitOfWork, lockIds: readonly string[], typed: string | undefined, length: number, codeId: string): Promise<string> {
  const free = async (digits: string) => {
    for (const lockId of lockIds) if (await digestTaken(uow.db, lockId, digestOf(ctx.box, lockId, digits), codeId)) return lockId;
    return null;
  };
  if (typed !== undefined) {
    const taken = await free(typed);
    if (taken !== null) throw errors.conflict(`lock ${taken} already has a live code with these digits`);
    return typed;
  }
  for (let attempt = 0; attempt < GENERATE_ATTEMPTS; attempt++) {
    const digits = newNumericCode(length);
    if (!isTrivialCode(digits) && (await free(digits)) === null) return digits;
  }
  throw errors.conflict('no free code of this length on these locks: choose a longer one');
}

/** The lock's next config version carries this change; returns it. */
async function nextVersion(ctx: AppContext, uow: UnitOfWork, lockId: string): Promise<number> {
  await configChanged(ctx, uow, lockId);
  return (await currentConfigVersion(uow, lockId))!;
}

function consume(uow: UnitOfWork, v: VerifiedCodeToken, now: number) {
  return consumeReplayKey(uow.db, uow.dialect, { lockId: v.lockId, replayKey: v.replayKey, expiresAt: v.claims.exp, now });
}

function auditDetails(grant: Grant) {
  return { code: grant.code, ...(grant.guest === null ? {} : { guest: grant.guest }), start: grant.start, end: grant.end, maxUses: grant.maxUses, ...(grant.schedule === null ? {} : { schedule: grant.schedule }) };
}

/** Runs a change; a live code with the same digits committed meanwhile on one of the locks is a 409. */
async function inCodeTransaction<T>(ctx: AppContext, lockIds: readonly string[], work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  try {
    return await inTransaction(ctx.db, ctx.logger, async (uow) => {
      await lockRowsForUpdate(uow, [...lockIds].sort());
      return work(uow);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.conflict('one of these locks already has a live code with these digits');
    throw err;
  }
}

/** POST /lock-codes: a code on each lock of the tokens; the generated digits are returned this once. */
export async function createCode(ctx: AppContext, caller: Caller, body: NewCodeBody, client: AuditClient): Promise<{ code: KeypadCode; digits?: string }> {
  if (body.digits !== undefined && body.length !== undefined) throw errors.validation('give digits or length, not both');
  if (body.digits !== undefined && isTrivialCode(body.digits)) throw errors.validation('digits: too easy to guess (one digit repeated, or a run such as 1234)');
  const verified = await verifyCodeTokens(ctx, caller, body.tokens, 'ADD_CODE', client);
  const grant = sameGrant(verified);
  await refuseOutlasting(ctx, caller, verified, grant, client);
  const lockIds = verified.map((v) => v.lockId);
  const digits = await inCodeTransaction(ctx, lockIds, async (uow) => {
    const now = ctx.now();
    if (await findCode(uow.db, grant.code)) throw errors.conflict('a code with this id exists: change it with PUT /lock-codes/{id}');
    const since = new Map<string, number | null>();
    for (const lockId of lockIds) since.set(lockId, await holderSince(uow, lockId, grant));
    const length = await fittingLength(uow, lockIds, body.digits?.length ?? body.length ?? null);
    const digits = await chooseDigits(ctx, uow, lockIds, body.digits, length, grant.code);
    await insertCode(uow.db, {
      id: grant.code,
      created_by: caller.userId,
      holder_user_id: grant.user,
      guest_name: grant.guest,
      sealed: ctx.box.seal(digits, sealContext(grant.code)),
      length: digits.length,
      starts_at: grant.start,
      ends_at: grant.end,
      schedule: grant.schedule === null ? null : JSON.stringify(grant.schedule),
      max_uses: grant.maxUses,
      created: now,
      updated: now,
    });
    for (const v of verified) {
      await consume(uow, v, now);
      await followKeypad(uow.db, v.lockId, now);
      await insertCodeLock(uow.db, {
        code_id: grant.code,
        lock_id: v.lockId,
        digest: digestOf(ctx.box, v.lockId, digits),
        token: v.compact,
        member_since: since.get(v.lockId) ?? null,
        uses: 0,
        last_used_at: null,
        removed_at: null,
        removed_reason: null,
        changed_version: await nextVersion(ctx, uow, v.lockId),
        sync_error: null,
        created: now,
        updated: now,
      });
      await recordAudit(ctx, uow, { lockId: v.lockId, type: 'CODE_ADDED', actorUserId: caller.userId, subjectUserId: grant.user, details: auditDetails(grant), client });
    }
    return digits;
  });
  const code = await readCode(ctx, caller, grant.code);
  return body.digits === undefined ? { code, digits } : { code };
}

/** The code, 404 unless the caller administers one of the locks it is live on. */
async function codeOfAdmin(uow: UnitOfWork, caller: Caller, codeId: string, now: number): Promise<{ code: CodeRow; rows: CodeLockRow[] }> {
  const code = await findCode(uow.db, codeId);
  const rows = code ? await codeLocksOf(uow.db, [codeId]) : [];
  for (const row of rows) {
    const member = await findEnrolment(uow.db, row.lock_id, caller.userId);
    if (member && canManageCodes(member, now).allowed) return { code: code!, rows };
  }
  throw errors.notFound('code');
}

function requireCodeOf(verified: ReadonlyArray<VerifiedCodeToken>, codeId: string): void {
  if (verified.some((v) => v.claims.operation.code !== codeId)) throw errors.validation('operation.code must be the code in the path');
}

/**
 * PUT /lock-codes/{id}: new window, schedule or maximum uses (an ADD_CODE for every lock the code
 * is live on: each lock checks the new terms were signed), or the same code on more locks.
 */
export async function changeCode(ctx: AppContext, caller: Caller, codeId: string, tokens: readonly string[], client: AuditClient): Promise<KeypadCode> {
  const verified = await verifyCodeTokens(ctx, caller, tokens, 'ADD_CODE', client);
  requireCodeOf(verified, codeId);
  const grant = sameGrant(verified);
  await refuseOutlasting(ctx, caller, verified, grant, client);
  const lockIds = verified.map((v) => v.lockId);
  await inCodeTransaction(ctx, lockIds, async (uow) => {
    const now = ctx.now();
    const { code, rows } = await codeOfAdmin(uow, caller, codeId, now);
    if (code.holder_user_id !== grant.user || code.guest_name !== grant.guest) throw errors.validation("a code's holder cannot change: revoke it and create another");
    const { code: _id, user: _user, guest: _guest, ...terms } = grant;
    const termsChanged = !isDeepStrictEqual(terms, storedGrant(code));
    const unsigned = rows.filter((row) => row.removed_at === null && !lockIds.includes(row.lock_id));
    if (termsChanged && unsigned.length > 0) throw errors.validation(`tokens: the code is also on lock ${unsigned[0]!.lock_id}; new terms need an ADD_CODE for each of its locks`);
    if (termsChanged) {
      await uow.db.updateTable('keypad_codes').set({ starts_at: grant.start, ends_at: grant.end, schedule: grant.schedule === null ? null : JSON.stringify(grant.schedule), max_uses: grant.maxUses, updated: now }).where('id', '=', codeId).execute();
    }
    const digits = ctx.box.open(code.sealed, sealContext(codeId)).toString('utf8');
    for (const v of verified) {
      const since = await holderSince(uow, v.lockId, grant);
      const existing = rows.find((row) => row.lock_id === v.lockId);
      await consume(uow, v, now);
      const digest = digestOf(ctx.box, v.lockId, digits);
      const placing = existing === undefined || existing.removed_at !== null;
      if (placing) await fittingLength(uow, [v.lockId], digits.length);
      if (placing && (await digestTaken(uow.db, v.lockId, digest, codeId))) throw errors.conflict(`lock ${v.lockId} already has a live code with these digits`);
      await followKeypad(uow.db, v.lockId, now);
      const version = await nextVersion(ctx, uow, v.lockId);
      const placed = { digest, token: v.compact, member_since: since, removed_at: null, removed_reason: null, changed_version: version, sync_error: null, updated: now };
      if (existing === undefined) await insertCodeLock(uow.db, { code_id: codeId, lock_id: v.lockId, uses: 0, last_used_at: null, created: now, ...placed });
      else await uow.db.updateTable('keypad_code_locks').set(placed).where('code_id', '=', codeId).where('lock_id', '=', v.lockId).execute();
      await recordAudit(ctx, uow, { lockId: v.lockId, type: placing ? 'CODE_ADDED' : 'CODE_CHANGED', actorUserId: caller.userId, subjectUserId: grant.user, details: auditDetails(grant), client });
    }
  });
  return readCode(ctx, caller, codeId);
}

/** POST /lock-codes/{id}/revoke: off each lock of the tokens (a REMOVE_CODE each). */
export async function revokeCode(ctx: AppContext, caller: Caller, codeId: string, tokens: readonly string[], client: AuditClient): Promise<KeypadCode> {
  const verified = await verifyCodeTokens(ctx, caller, tokens, 'REMOVE_CODE', client);
  requireCodeOf(verified, codeId);
  await inCodeTransaction(ctx, verified.map((v) => v.lockId), async (uow) => {
    const now = ctx.now();
    const { code, rows } = await codeOfAdmin(uow, caller, codeId, now);
    for (const v of verified) {
      const row = rows.find((candidate) => candidate.lock_id === v.lockId && candidate.removed_at === null);
      if (!row) throw errors.notFound('code');
      await consume(uow, v, now);
      const version = await nextVersion(ctx, uow, v.lockId);
      await uow.db.updateTable('keypad_code_locks').set({ removed_at: now, removed_reason: 'revoked', changed_version: version, sync_error: null, updated: now }).where('code_id', '=', codeId).where('lock_id', '=', v.lockId).execute();
      await recordAudit(ctx, uow, { lockId: v.lockId, type: 'CODE_REMOVED', actorUserId: caller.userId, subjectUserId: code.holder_user_id, details: { code: codeId, reason: 'revoked' }, client });
    }
  });
  return readCode(ctx, caller, codeId);
}
