import type { Caller } from '../accounts/caller.js';
import type { AuditClient } from '../audit/log-format.js';
import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import { sha256Hex } from '../crypto/random.js';
import { inTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { configChanged } from './config-changes.js';
import type { Executor } from '../db/transaction.js';
import { insertMember, loadLockRowForMember, type MemberLockRow } from './queries.js';

/**
 * POST /device: the caller claims an unowned lock with its one-time registration key and
 * becomes its first ADMIN; `name` becomes the lock's default name. OWNER_ASSIGNED is audited with
 * the caller as actor. Unknown key 404, spent key 409. The key is spent by one conditional
 * update, so of two concurrent claims exactly one wins (on PostgreSQL the loser waits for the
 * winner's row lock, then finds `claimed_at` set).
 */
export async function claimLock(ctx: AppContext, caller: Caller, key: string, name: string, client?: AuditClient): Promise<MemberLockRow> {
  const keyHash = sha256Hex(key);
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const now = ctx.now();
    const claimed = await uow.db
      .updateTable('locks')
      .set({ owner_user_id: caller.userId, claimed_at: now, default_name: name, updated: now })
      .where('registration_key_hash', '=', keyHash)
      .where('claimed_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!claimed) {
      const exists = await uow.db.selectFrom('locks').select('id').where('registration_key_hash', '=', keyHash).executeTakeFirst();
      throw exists ? errors.conflict('registration key already used') : errors.notFound('registration key');
    }
    const lockId = claimed.id;
    await insertMember(uow.db, { lock_id: lockId, user_id: caller.userId, role: 'ADMIN', starts_at: null, ends_at: null, alias: null, colour: null, created: now, updated: now });
    await recordAudit(ctx, uow, { lockId, type: 'OWNER_ASSIGNED', actorUserId: caller.userId, ...(client ? { client } : {}) });
    await configChanged(ctx, uow, lockId);
    const lock = await loadLockRowForMember(uow.db, uow.dialect, lockId, caller.userId);
    if (!lock) throw errors.internal();
    return lock;
  });
}

/**
 * The last member left (shared decisions §8): the lock is unclaimed again, as provisioned, and its
 * registration key claims it once more (holding the key that came with the lock is the proof of
 * possession). The former owners' settings go with them: the next owner starts from the defaults.
 * The lock's site (an operator's assignment) and its unlock duration (how the door works) stay.
 */
export async function returnToUnclaimed(db: Executor, lockId: string, now: number): Promise<void> {
  await db
    .updateTable('locks')
    .set({ owner_user_id: null, claimed_at: null, default_name: null, permitted_addresses: '[]', usage_requirements: '{}', unlock_between: null, updated: now })
    .where('id', '=', lockId)
    .execute();
}
