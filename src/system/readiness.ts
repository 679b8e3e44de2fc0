import { sql } from 'kysely';
import type { AppContext } from '../context.js';

export type CheckOutcome = 'ok' | 'failed';

export interface Readiness {
  ready: boolean;
  /** Each dependency checked: the database, the broker link, Redis (only when configured). */
  checks: Record<string, CheckOutcome>;
}

/** A probe's database ping may wait this long; a probe that hangs is worse than one that fails. */
const DATABASE_PING_MS = 1000;

async function databaseAnswers(ctx: Pick<AppContext, 'db'>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), DATABASE_PING_MS)));
  try {
    return await Promise.race([sql`select 1`.execute(ctx.db.kysely).then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether this instance can serve: one `select 1`, and the connection states the broker link and
 * Redis already keep (no round trip). Redis counts as up only when both its command connection
 * and the bus's subscriber connection are.
 */
export async function readiness(ctx: Pick<AppContext, 'db' | 'link' | 'redis' | 'bus'>): Promise<Readiness> {
  const checks: Record<string, CheckOutcome> = {
    database: (await databaseAnswers(ctx)) ? 'ok' : 'failed',
    broker: ctx.link.brokerStatus().connected ? 'ok' : 'failed',
  };
  if (ctx.redis) checks.redis = ctx.redis.status === 'ready' && ctx.bus.status().connected ? 'ok' : 'failed';
  return { ready: Object.values(checks).every((outcome) => outcome === 'ok'), checks };
}
