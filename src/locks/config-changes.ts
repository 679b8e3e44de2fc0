import type { AppContext } from '../context.js';
import type { UnitOfWork } from '../db/transaction.js';
import { bumpConfigVersion } from './queries.js';

/**
 * A lock's configuration (its users and on-lock settings) changed: it takes the next version, and
 * after commit `lock-config` is announced so the lock link publishes the new configuration.
 */

/** Bus channel: `{ lockId }` after any change of a lock's users or on-lock settings. */
export const LOCK_CONFIG_CHANNEL = 'lock-config';

/** Takes the next config version and queues the announcement for after commit. */
export async function configChanged(ctx: AppContext, uow: UnitOfWork, lockId: string): Promise<void> {
  await bumpConfigVersion(uow.db, lockId, ctx.now());
  uow.onCommit(() => ctx.bus.publish(LOCK_CONFIG_CHANNEL, { lockId }));
}

/** A change of the user's own record that locks see (their legacy key): every lock they are a member of takes a new config. */
export async function locksOfUserChanged(ctx: AppContext, uow: UnitOfWork, userId: string): Promise<void> {
  const rows = await uow.db.selectFrom('lock_members').select('lock_id').where('user_id', '=', userId).execute();
  for (const { lock_id: lockId } of rows) await configChanged(ctx, uow, lockId);
}

/** A user's new legacy key reaches the configs of their locks (src/accounts/events.ts, `keyChanged`). */
export function lockConfigsFollowAccountKeys(ctx: AppContext): void {
  ctx.accountEvents.on('keyChanged', (uow, { userId }) => locksOfUserChanged(ctx, uow, userId));
}
