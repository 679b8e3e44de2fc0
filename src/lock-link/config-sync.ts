import type { AppContext } from '../context.js';
import type { LockConfig } from '../device-protocol/payloads.js';
import { lockConfig, lockConfigs } from '../locks/config.js';
import { LOCK_CONFIG_CHANNEL } from '../locks/config-changes.js';

/**
 * Keeps each lock's retained `config` on the broker equal to the database: after every
 * `lock-config` announcement (a membership or setting change committed) the current config is
 * published. An unowned lock gets a config with no users (it then refuses every command).
 */

type SyncContext = Pick<AppContext, 'db' | 'logger' | 'bus' | 'link'>;

export async function publishLockConfig(ctx: SyncContext, lockId: string): Promise<boolean> {
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

export interface RepublishPace {
  /** Locks read and published together. */
  pageSize: number;
  /** Upper bound on configs published a second, so a broker (and the unlocks sharing it) is not flooded. */
  perSecond: number;
}

const DEFAULT_PACE: RepublishPace = { pageSize: 200, perSecond: 2000 };
/** Configs serialised and handed to the client between two yields to the event loop. */
const CHUNK = 25;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Publishes the config of every claimed lock, a page at a time (two queries a page), at most
 * `pace.perSecond` a second, yielding to the event loop between small chunks so commands and
 * replies keep flowing. Delivery must not depend on the broker keeping retained messages (a
 * restart without persistence, a restored snapshot, the embedded broker's memory): this runs on
 * each connection to the broker and in the periodic sweep. Stops early when `stopped()` turns
 * true (shutdown).
 */
export async function republishAllConfigs(ctx: SyncContext, stopped: () => boolean, pace: RepublishPace = DEFAULT_PACE): Promise<number> {
  let after = '';
  let count = 0;
  const started = Date.now();
  while (!stopped()) {
    const page = await ctx.db.kysely
      .selectFrom('locks')
      .select('id')
      .where('claimed_at', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(pace.pageSize)
      .execute();
    const ids = page.map((row) => row.id);
    const configs = await lockConfigs(ctx.db.kysely, ids);
    const sent: Array<Promise<void>> = [];
    for (let i = 0; i < ids.length && !stopped(); i += CHUNK) {
      for (const id of ids.slice(i, i + CHUNK)) {
        const config = configs.get(id);
        if (config) sent.push(ctx.link.publishConfig(id, config as LockConfig));
      }
      await yieldToLoop();
    }
    await Promise.all(sent);
    count += sent.length;
    const ahead = (count / pace.perSecond) * 1000 - (Date.now() - started);
    if (ahead > 0) await sleep(ahead);
    if (page.length < pace.pageSize) break;
    after = ids[ids.length - 1]!;
  }
  return count;
}
