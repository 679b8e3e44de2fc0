import type { AppContext } from '../context.js';
import type { LockConfig } from '../device-protocol/payloads.js';
import { lockConfigs } from '../locks/config.js';
import { LOCK_CONFIG_CHANNEL } from '../locks/config-changes.js';
import { configCodes } from '../keypad-codes/config-codes.js';

/**
 * Keeps each lock's retained `config` on the broker equal to the database: after every
 * `lock-config` announcement (a membership or setting change committed) the current config is
 * published. An unowned lock gets a config with no users (it then refuses every command).
 */

type SyncContext = Pick<AppContext, 'db' | 'logger' | 'bus' | 'link' | 'box' | 'now'>;

/** The configs of `lockIds` with their keypad codes (protocol 1.5; `codes` only on a lock that has some). */
async function fullConfigs(ctx: SyncContext, lockIds: string[]): Promise<Map<string, LockConfig>> {
  const configs = await lockConfigs(ctx.db.kysely, lockIds);
  const codes = await configCodes(ctx.db.kysely, ctx.box, [...configs.keys()], ctx.now());
  const full = new Map<string, LockConfig>();
  for (const [id, config] of configs) {
    const own = codes.get(id);
    full.set(id, own === undefined ? (config as LockConfig) : { ...(config as LockConfig), codes: own });
  }
  return full;
}

export async function publishLockConfig(ctx: SyncContext, lockId: string): Promise<boolean> {
  const config = (await fullConfigs(ctx, [lockId])).get(lockId);
  if (!config) return false;
  await ctx.link.publishConfig(lockId, config);
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
    const configs = await fullConfigs(ctx, ids);
    const sent: Array<Promise<void>> = [];
    for (let i = 0; i < ids.length && !stopped(); i += CHUNK) {
      for (const id of ids.slice(i, i + CHUNK)) {
        const config = configs.get(id);
        if (config) sent.push(ctx.link.publishConfig(id, config));
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
