import type { AppContext } from '../context.js';
import { prepareQuery } from '../db/prepared.js';
import type { Executor } from '../db/transaction.js';
import { safeReason, type LockState } from '../device-protocol/payloads.js';

/**
 * Per-lock sync state of codes (issue 30 point 3): the config version each lock says it holds
 * (`state.configVersion`) against the version that carried each code's last change, and the
 * codes the lock refused (`state.codeErrors`, protocol 1.5). Only locks that have had a code keep
 * a row (made when a code is first placed on them), so other locks' reports cost one indexed read.
 */

// Prepared, read outside a transaction (synchronously on SQLite): every state report of every lock asks it.
const keypadRowQuery = prepareQuery<{ lockId: string }, { applied_version: number | null }>((db, slot) =>
  db.selectFrom('keypad_locks').select('applied_version').where('lock_id', '=', slot.lockId));

/** Before a code is first placed on a lock: its keypad row, so its reports are followed. */
export async function followKeypad(db: Executor, lockId: string, now: number): Promise<void> {
  await db.insertInto('keypad_locks').values({ lock_id: lockId, applied_version: null, lockout_until: null, updated: now }).onConflict((oc) => oc.column('lock_id').doNothing()).execute();
}

/** What a lock of protocol before 1.5 is said to have done with codes it never read. */
export const CODES_UNSUPPORTED = 'unsupported: the lock does not take keypad codes (device protocol before 1.5)';

/** A state report: the version the lock holds and the codes of it that it refused. */
export async function recordKeypadSync(ctx: Pick<AppContext, 'db' | 'now'>, lockId: string, state: LockState): Promise<void> {
  const version = state.configVersion;
  if (typeof version !== 'number') return;
  const db = ctx.db.kysely;
  const now = ctx.now();
  const followed = await keypadRowQuery.takeFirstNow(ctx.db, { lockId });
  // Not followed and saying nothing of codes: nothing to record (most locks, most reports).
  if (followed === undefined && state.codeErrors === undefined) return;
  if (followed !== undefined && followed.applied_version !== version) {
    await db
      .updateTable('keypad_locks')
      .set({ applied_version: version, updated: now })
      .where('lock_id', '=', lockId)
      .where((eb) => eb.or([eb('applied_version', 'is', null), eb('applied_version', '!=', version)]))
      .execute();
  }
  const held = await db.selectFrom('keypad_code_locks').select(['code_id', 'sync_error']).where('lock_id', '=', lockId).where('removed_at', 'is', null).where('changed_version', '<=', version).execute();
  const refused = new Map((state.codeErrors ?? []).map((e) => [e.code.toLowerCase(), safeReason(e.error)]));
  for (const row of held) {
    const error = state.codeErrors === undefined ? CODES_UNSUPPORTED : (refused.get(row.code_id) ?? null);
    if (error === row.sync_error) continue;
    await db.updateTable('keypad_code_locks').set({ sync_error: error, updated: now }).where('code_id', '=', row.code_id).where('lock_id', '=', lockId).where('changed_version', '<=', version).execute();
  }
}
