import { keypadLockedOut } from '../alarms/conditions.js';
import type { AppContext } from '../context.js';
import type { UnitOfWork } from '../db/transaction.js';
import { configChanged } from '../locks/config-changes.js';
import { currentConfigVersion } from '../locks/config.js';
import { findCode } from './queries.js';

/**
 * What a lock's keypad did (device protocol 1.3 `operation` with source `keypad`, and 1.5's `code`,
 * `refused`, `lockoutUntil`), in the transaction that audits the report once: a code's use is
 * counted on its lock and, once the code's uses across its locks reach its maximum, the code leaves
 * every lock of its set (their configs follow); the entry is attributed to the code's holder and
 * names the code, never its digits; a refused entry is a refused DOOR_UNLOCK (which the
 * `refused_unlocks` alarm counts), a lockout is said in it, kept for the lock's administrators and
 * raises the `keypad_locked_out` alarm (src/alarms), cleared once the lockout is over.
 */

export interface KeypadReport {
  ts: number;
  /** 1.5: the code used or refused, when the lock knows it. */
  code?: string | undefined;
  /** 1.5: why the lock refused an entry (no bolt moved). */
  refused?: string | undefined;
  /** 1.5: the keypad refuses every entry until then (repeated wrong codes). */
  lockoutUntil?: number | undefined;
}

/** How the report's DOOR_UNLOCK entry reads. */
export interface KeypadAttribution {
  actorUserId: string | null;
  rejected: boolean;
  message: string;
  details: Record<string, unknown>;
}

/** Attribution and bookkeeping of a keypad report; null when it names no code and refuses nothing (a lock before 1.5). */
export async function keypadUse(ctx: AppContext, uow: UnitOfWork, lockId: string, report: KeypadReport): Promise<KeypadAttribution | null> {
  if (report.code === undefined && report.refused === undefined) return null;
  const codeId = report.code?.toLowerCase();
  const code = codeId === undefined ? undefined : await findCode(uow.db, codeId);
  const placed = code && (await uow.db.selectFrom('keypad_code_locks').select(['uses']).where('code_id', '=', code.id).where('lock_id', '=', lockId).executeTakeFirst());
  const known = code !== undefined && placed !== undefined ? code : undefined;
  const holder = known ? (known.holder_user_id === null ? `${known.guest_name ?? 'a guest'}'s code` : 'their code') : 'a code';
  const details = { ...(known ? { code: known.id, ...(known.guest_name === null ? {} : { guest: known.guest_name }) } : {}) };
  if (report.lockoutUntil !== undefined) await lockedOut(ctx, uow, lockId, report.lockoutUntil);
  if (report.refused !== undefined) {
    const lockout = report.lockoutUntil === undefined ? '' : `; the keypad is locked out until ${new Date(report.lockoutUntil * 1000).toISOString()}`;
    return {
      actorUserId: known?.holder_user_id ?? null,
      rejected: true,
      message: `keypad: ${holder} (${report.refused.slice(0, 64)})${lockout}`,
      details: { ...details, reason: report.refused.slice(0, 64), ...(report.lockoutUntil === undefined ? {} : { lockoutUntil: report.lockoutUntil }) },
    };
  }
  if (!known) return { actorUserId: null, rejected: false, message: 'lock unlocked at the keypad with a code the service does not know', details };
  await uow.db.updateTable('keypad_code_locks').set((eb) => ({ uses: eb('uses', '+', 1), last_used_at: report.ts, updated: ctx.now() })).where('code_id', '=', known.id).where('lock_id', '=', lockId).execute();
  if (known.max_uses !== null) await settleUses(ctx, uow, known.id, known.max_uses);
  return { actorUserId: known.holder_user_id, rejected: false, message: `lock unlocked at the keypad with ${holder}`, details };
}

/** A code with a maximum: used up → off every lock; else its other locks learn the uses (config `usedElsewhere`). */
async function settleUses(ctx: AppContext, uow: UnitOfWork, codeId: string, maxUses: number): Promise<void> {
  const rows = await uow.db.selectFrom('keypad_code_locks').select(['lock_id', 'uses', 'removed_at']).where('code_id', '=', codeId).execute();
  const total = rows.reduce((sum, row) => sum + row.uses, 0);
  const now = ctx.now();
  for (const row of rows.filter((r) => r.removed_at === null)) {
    await configChanged(ctx, uow, row.lock_id);
    if (total < maxUses) continue;
    const version = (await currentConfigVersion(uow, row.lock_id))!;
    await uow.db.updateTable('keypad_code_locks').set({ removed_at: now, removed_reason: 'used_up', changed_version: version, updated: now }).where('code_id', '=', codeId).where('lock_id', '=', row.lock_id).execute();
  }
}

/** The keypad locked out: kept for its administrators, and the `keypad_locked_out` alarm raised (once) until it ends. */
async function lockedOut(ctx: AppContext, uow: UnitOfWork, lockId: string, until: number): Promise<void> {
  await uow.db
    .insertInto('keypad_locks')
    .values({ lock_id: lockId, applied_version: null, lockout_until: until, updated: ctx.now() })
    .onConflict((oc) => oc.column('lock_id').doUpdateSet({ lockout_until: until, updated: ctx.now() }))
    .execute();
  await keypadLockedOut(ctx, uow, lockId, until);
}
