import type { Caller } from '../accounts/caller.js';
import { assertAllowed } from '../access/member-policy.js';
import type { AuditClient } from '../audit/log-format.js';
import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import { inTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { configChanged } from './config-changes.js';
import { canDecommission } from './policy.js';
import { findLockForUpdate, findMembership } from './queries.js';

/**
 * POST /device/{id}/decommission (issue 28; the SDK's DEVICE_DECOMMISSIONED, for which neither the
 * docs nor the SDK name an endpoint): the owner retires the lock for good. In one transaction:
 * every member and held share goes (the lock vanishes from their lists: 404), its tiles are
 * unlinked, its waiting queued operations are refused, its device secret and registration key
 * are replaced by values nothing hashes to (the broker refuses the secret, and the device
 * certificate too once the lock is retired: src/locks/provision.ts), and DEVICE_DECOMMISSIONED is
 * audited with the caller as actor. After commit the lock is told, by a config with no users, and
 * cut off: every instance stops hearing it and sending it commands, and the embedded broker closes
 * its connection (src/lock-link/cut-off.ts). The row and its audit trail stay.
 */
export async function decommissionLock(ctx: AppContext, caller: Caller, lockId: string, client: AuditClient): Promise<void> {
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    const now = ctx.now();
    const lock = await findLockForUpdate(uow.db, uow.dialect, lockId);
    const member = lock && lock.decommissioned_at === null ? await findMembership(uow.db, lockId, caller.userId) : undefined;
    if (!lock || !member) throw errors.notFound('lock');
    assertAllowed(canDecommission(member, lock.owner_user_id === caller.userId, lock.owner_user_id !== null, now));

    const members = await uow.db.deleteFrom('lock_members').where('lock_id', '=', lockId).returning('user_id').execute();
    await uow.db.deleteFrom('held_invite_shares').where('lock_id', '=', lockId).execute();
    const tiles = await uow.db.deleteFrom('tile_locks').where('lock_id', '=', lockId).returning('tile_id').execute();
    await uow.db.updateTable('queued_operations')
      .set({ state: 'REFUSED', finished_at: now, lease_until: null, error: 'not_found', error_message: 'the lock was decommissioned' })
      .where('lock_id', '=', lockId).where('state', '=', 'QUEUED').execute();
    await uow.db.updateTable('locks').set({
      decommissioned_at: now, owner_user_id: null, secret_hash: RETIRED, registration_key_hash: `${RETIRED}:${lockId}`,
      pending_actor_user_id: null, pending_target_locked: null, pending_until: null, pending_command_id: null, pending_late: null, updated: now,
    }).where('id', '=', lockId).execute();
    await recordAudit(ctx, uow, {
      lockId, type: 'DEVICE_DECOMMISSIONED', actorUserId: caller.userId, client,
      message: 'the lock was decommissioned: its members, tiles and device credentials no longer count',
      details: { members: members.length, tiles: tiles.length },
    });
    await configChanged(ctx, uow, lockId);
    uow.onCommit(() => ctx.bus.publish(LOCK_DECOMMISSIONED_CHANNEL, { lockId }));
  });
}

/** Bus channel: `{ lockId }` once a lock's decommissioning is committed; every instance's lock link cuts it off (src/lock-link/cut-off.ts). */
export const LOCK_DECOMMISSIONED_CHANNEL = 'lock-decommissioned';

/** What a retired lock's secret and registration key hashes become: no SHA-256 hex, so nothing matches them. */
const RETIRED = 'decommissioned';
