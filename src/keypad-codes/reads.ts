import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { canManageCodes } from './policy.js';
import { presentCode } from './presenters.js';
import { administeredLocks, appliedVersions, codeIdsOnLocks, codeLocksOf, findCodes, findEnrolment, holderMemberships, userEmails } from './queries.js';
import type { KeypadCode } from './schemas.js';
import { refusalError } from '../access/member-policy.js';

/**
 * Reading codes: only administrators of a lock see its codes, and a code shows only the locks the
 * caller administers. Never the digits.
 */

/** Views of `codeIds`, each with its places on `visibleLocks`, in the order given. */
export async function codeViews(db: Executor, codeIds: readonly string[], visibleLocks: readonly string[], now: number): Promise<KeypadCode[]> {
  const codes = new Map((await findCodes(db, codeIds)).map((code) => [code.id, code]));
  const rows = await codeLocksOf(db, codeIds);
  const holderPairs = rows.flatMap((row) => {
    const holder = codes.get(row.code_id)?.holder_user_id;
    return holder ? [{ lockId: row.lock_id, userId: holder }] : [];
  });
  const memberships = await holderMemberships(db, holderPairs);
  const versions = await appliedVersions(db, [...new Set(rows.map((row) => row.lock_id))]);
  const holders = new Map((await userEmails(db, [...new Set([...codes.values()].flatMap((c) => (c.holder_user_id ? [c.holder_user_id] : [])))])).map((u) => [u.id, u.display_name ?? u.email]));
  const visible = new Set(visibleLocks);
  return codeIds.flatMap((id) => {
    const code = codes.get(id);
    if (!code) return [];
    const own = rows.filter((row) => row.code_id === id);
    const holderSince = new Map(own.flatMap((row) => {
      const m = code.holder_user_id ? memberships.get(`${row.lock_id}:${code.holder_user_id}`) : undefined;
      return m ? [[row.lock_id, m] as const] : [];
    }));
    return [presentCode(code, own.filter((row) => visible.has(row.lock_id)), {
      uses: own.reduce((sum, row) => sum + row.uses, 0),
      holderSince,
      appliedVersions: versions,
      holderName: code.holder_user_id ? (holders.get(code.holder_user_id) ?? null) : null,
      now,
    })];
  });
}

/** GET /lock-codes: the codes of one lock (404 non-member, 403 not an active ADMIN), or of every lock the caller administers. */
export async function listCodes(ctx: AppContext, caller: Caller, lockId: string | null): Promise<KeypadCode[]> {
  const db = ctx.db.kysely;
  const now = ctx.now();
  let locks: string[];
  if (lockId !== null) {
    const member = await findEnrolment(db, lockId, caller.userId);
    if (!member) throw errors.notFound('lock');
    const allowed = canManageCodes(member, now);
    if (!allowed.allowed) throw refusalError(allowed);
    locks = [lockId];
  } else {
    locks = await administeredLocks(db, caller.userId, now, null);
  }
  return codeViews(db, await codeIdsOnLocks(db, locks), locks, now);
}

/** GET /lock-codes/{id}: 404 unless the caller administers one of its locks. */
export async function readCode(ctx: AppContext, caller: Caller, codeId: string): Promise<KeypadCode> {
  const db = ctx.db.kysely;
  const now = ctx.now();
  const lockIds = (await codeLocksOf(db, [codeId])).map((row) => row.lock_id);
  const visible = await administeredLocks(db, caller.userId, now, lockIds);
  if (visible.length === 0) throw errors.notFound('code');
  return (await codeViews(db, [codeId], visible, now))[0]!;
}
