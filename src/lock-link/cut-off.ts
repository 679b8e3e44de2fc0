import type { AppContext } from '../context.js';
import { LOCK_DECOMMISSIONED_CHANNEL } from '../locks/decommission.js';
import { publishLockConfig } from './config-sync.js';
import { recordPresences } from './reports.js';

/**
 * A decommissioned lock is cut off (docs/decisions.md, "A decommissioned lock cut off"). The broker
 * refuses its next login (its secret and certificate no longer count), but a connection it holds
 * would stay: so each instance, told on the bus (the instance that served the request may not be
 * the one whose broker or subscription the lock reaches), stops hearing it and sending it
 * commands (LockLink.retire), hands it the config with no users one last time, and, with the
 * embedded broker, closes its connection. An external broker keeps the connection: what an
 * operator does about it is in the decision.
 */

/** Cuts `lockId` off on this instance; its presence is recorded offline (DEVICE_DISCONNECTED, once across instances). */
export async function cutOffLock(ctx: AppContext, lockId: string): Promise<void> {
  ctx.link.retire(lockId);
  if (ctx.broker) {
    // The config with no users is already on its way (config sync, after the commit); with the
    // embedded broker it must be out before the connection goes, so a lock still on its door forgets its users.
    await publishLockConfig(ctx, lockId).catch((err: unknown) => ctx.logger.warn({ err, lockId }, 'the decommissioned lock\'s last config was not published'));
    if (await ctx.broker.disconnect(lockId)) ctx.logger.info({ lockId }, 'decommissioned lock disconnected from the embedded broker');
  }
  await recordPresences(ctx, [{ lockId, online: false }]);
}

/** Every lock decommissioned so far, retired on this instance's link before it listens (retained reports are replayed then). */
export async function retireDecommissionedLocks(ctx: Pick<AppContext, 'db' | 'link'>): Promise<void> {
  for (const id of await decommissionedLockIds(ctx)) ctx.link.retire(id);
}

/**
 * Subscribes to the decommissionings of every instance; returns the unsubscribe. The bus delivers
 * at most once: a decommissioning announced while this instance was out of touch with the others
 * (Redis down, its connection lost) never arrives, so each time the bus comes back the locks
 * decommissioned meanwhile, found in the database, are cut off here too.
 */
export function cutOffDecommissionedLocks(ctx: AppContext): () => void {
  let stopped = false;
  const cutOff = (lockId: string) => cutOffLock(ctx, lockId).catch((err: unknown) => ctx.logger.error({ err, lockId }, 'cutting off a decommissioned lock failed'));
  const unsubscribe = ctx.bus.subscribe(LOCK_DECOMMISSIONED_CHANNEL, (message) => {
    const lockId = (message as { lockId?: unknown } | null)?.lockId;
    if (typeof lockId === 'string') void cutOff(lockId);
  });
  ctx.bus.onConnectionChange((connected) => {
    if (!connected || stopped) return;
    decommissionedLockIds(ctx)
      .then((ids) => Promise.all(ids.filter((id) => !stopped && !ctx.link.isRetired(id)).map(cutOff)))
      .catch((err: unknown) => ctx.logger.error({ err }, 'cutting off the locks decommissioned while the bus was down failed'));
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}

async function decommissionedLockIds(ctx: Pick<AppContext, 'db'>): Promise<string[]> {
  const rows = await ctx.db.kysely.selectFrom('locks').select('id').where('decommissioned_at', 'is not', null).execute();
  return rows.map(({ id }) => id);
}
