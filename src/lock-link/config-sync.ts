import type { AppContext } from '../context.js';
import type { LockConfig } from '../device-protocol/payloads.js';
import { lockConfig } from '../locks/config.js';
import { LOCK_CONFIG_CHANNEL } from '../locks/config-changes.js';

/**
 * Keeps each lock's retained `config` on the broker equal to the database: after every
 * `lock-config` announcement (a membership or setting change committed) the current config is
 * published. An unowned lock gets a config with no users (it then refuses every command).
 */

type SyncContext = Pick<AppContext, 'db' | 'logger' | 'bus' | 'link'>;

async function publishLockConfig(ctx: SyncContext, lockId: string): Promise<boolean> {
  const config = await lockConfig(ctx.db.kysely, lockId);
  if (!config) return false;
  await ctx.link.publishConfig(lockId, config as LockConfig);
  return true;
}

function lockIdOf(message: unknown): string | undefined {
  const lockId = (message as { lockId?: unknown } | null)?.lockId;
  return typeof lockId === 'string' ? lockId : undefined;
}

/** Subscribes to `lock-config`; returns the unsubscribe function. */
export function syncLockConfigs(ctx: SyncContext): () => void {
  return ctx.bus.subscribe(LOCK_CONFIG_CHANNEL, (message) => {
    const lockId = lockIdOf(message);
    if (lockId === undefined) return;
    publishLockConfig(ctx, lockId).catch((err: unknown) => ctx.logger.error({ err, lockId }, 'publishing lock config failed'));
  });
}

/**
 * Publishes the config of every claimed lock, a page at a time: the embedded broker keeps its
 * retained messages in memory only, so after a restart they must be put back. Stops early when
 * `stopped()` turns true (shutdown).
 */
export async function republishAllConfigs(ctx: SyncContext, stopped: () => boolean, pageSize = 200): Promise<number> {
  let after = '';
  let count = 0;
  while (!stopped()) {
    const page = await ctx.db.kysely
      .selectFrom('locks')
      .select('id')
      .where('claimed_at', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(pageSize)
      .execute();
    for (const { id } of page) {
      if (stopped()) break;
      if (await publishLockConfig(ctx, id)) count += 1;
    }
    if (page.length < pageSize) break;
    after = page[page.length - 1]!.id;
  }
  return count;
}
