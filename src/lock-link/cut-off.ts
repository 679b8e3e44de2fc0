import type { AppContext } from '../context.js';
import { LOCK_DECOMMISSIONED_CHANNEL } from '../locks/decommission.js';
import { publishLockConfig } from './config-sync.js';
import { recordPresences } from './reports.js';
import { TurnTimer } from '../db/turns.js';

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

/** How often each instance looks in the database for locks decommissioned without its hearing of it. */
const CATCH_UP_MS = 60_000;
/** How far back before its previous look each look reads: the instances' clocks may differ by this much. */
const CLOCK_MARGIN_SECONDS = 300;

/**
 * Retires every lock decommissioned so far on this instance's link (before it listens: retained
 * reports are replayed then), and from then on cuts off each lock decommissioned on any instance,
 * told on the bus. The bus delivers at most once: an announcement is lost when this instance was
 * off the bus (Redis down, its connection lost) or when the publishing instance's publish failed
 * while this one stayed connected. So each time the bus comes back, and every minute, the locks
 * decommissioned meanwhile, found in the database, are cut off here too. Returns the stop.
 */
export async function cutOffDecommissionedLocks(ctx: AppContext, catchUpMs = CATCH_UP_MS): Promise<() => Promise<void>> {
  let caughtUp = false;
  let stopped = false;
  const cutOff = (lockId: string) => cutOffLock(ctx, lockId).catch((err: unknown) => ctx.logger.error({ err, lockId }, 'cutting off a decommissioned lock failed'));
  // Subscribed before the first look, so none decommissioned in between is missed.
  const unsubscribe = ctx.bus.subscribe(LOCK_DECOMMISSIONED_CHANNEL, (message) => {
    const lockId = (message as { lockId?: unknown } | null)?.lockId;
    if (typeof lockId === 'string') void cutOff(lockId);
  });
  // Each look reads the locks decommissioned since the one before, less a margin for the instances' clocks.
  let lookedAt = ctx.now();
  const catchUp = async () => {
    const since = lookedAt - CLOCK_MARGIN_SECONDS;
    lookedAt = ctx.now();
    for (const id of await decommissionedLockIds(ctx, since)) if (!stopped && !ctx.link.isRetired(id)) await cutOff(id);
  };
  const timer = new TurnTimer(ctx, { turn: null, intervalMs: catchUpMs, what: 'the look for decommissioned locks', run: catchUp });
  ctx.bus.onConnectionChange((connected) => {
    if (connected && caughtUp && !stopped) catchUp().catch((err: unknown) => ctx.logger.error({ err }, 'cutting off the locks decommissioned while the bus was down failed'));
  });
  try {
    for (const id of await decommissionedLockIds(ctx)) ctx.link.retire(id);
  } catch (err) {
    unsubscribe();
    throw err;
  }
  caughtUp = true;
  timer.start();
  return async () => {
    stopped = true;
    unsubscribe();
    await timer.stop();
  };
}

/** The locks decommissioned (since `since`, Unix seconds, by the decommissioning instance's clock). */
async function decommissionedLockIds(ctx: Pick<AppContext, 'db'>, since?: number): Promise<string[]> {
  let query = ctx.db.kysely.selectFrom('locks').select('id').where('decommissioned_at', 'is not', null);
  if (since !== undefined) query = query.where('decommissioned_at', '>=', since);
  return (await query.execute()).map(({ id }) => id);
}
