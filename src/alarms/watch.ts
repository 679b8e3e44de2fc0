import type { AppContext } from '../context.js';
import { inTransaction } from '../db/transaction.js';
import { decideTimed } from './conditions.js';
import type { AlarmKind } from './kinds.js';
import { heldOpenCandidates, locksWithOpenAlarm, offlineCandidates, staleAlarms } from './queries.js';
import { DEFAULT_THRESHOLDS } from './thresholds.js';

/** Locks looked at in one sweep, at most, per kind of question (a sweep after it takes the rest). */
const MAX_PER_SWEEP = 2000;

/**
 * The alarms that time raises or clears: `held_open` and `offline` once their threshold passes,
 * `refused_unlocks` once its window does, `keypad_locked_out` once the keypad's lockout is over. Every `intervalMs` (ALARM_SWEEP_MS) it asks the database
 * which locks' stored state now crosses a threshold, by the service's clock (ctx.now), and decides
 * each on its row (conditions.ts). It keeps no timer per lock: a restarted service finds the same
 * doors open and the same locks offline, and of several instances sweeping, the unique open alarm
 * per lock and kind lets one raise it.
 */
export class AlarmWatch {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly ctx: AppContext, private readonly intervalMs: number) {}

  start(): void {
    if (this.intervalMs <= 0 || this.timer !== undefined) return;
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One sweep (a sweep already running is joined, not doubled); never rejects. */
  sweep(): Promise<void> {
    this.running ??= this.sweepOnce()
      .catch((err: unknown) => this.ctx.logger.error({ err }, 'alarm sweep failed'))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweepOnce(): Promise<void> {
    const { ctx } = this;
    const db = ctx.db.kysely;
    const decide = (lockId: string, kind: AlarmKind) => inTransaction(ctx.db, ctx.logger, (uow) => decideTimed(ctx, uow, lockId, kind, ctx.now()));
    await this.each(() => heldOpenCandidates(db, ctx.now(), DEFAULT_THRESHOLDS.heldOpenSeconds), (id) => decide(id, 'held_open'));
    await this.each(() => offlineCandidates(db, ctx.now(), DEFAULT_THRESHOLDS.offlineSeconds), (id) => decide(id, 'offline'));
    await this.each(async () => (await staleAlarms(db)).map((row) => `${row.kind}:${row.lock_id}`), (key) => {
      const [kind, lockId] = key.split(':') as [AlarmKind, string];
      return decide(lockId, kind);
    });
    for (const kind of ['refused_unlocks', 'keypad_locked_out'] as const) for (const lockId of await locksWithOpenAlarm(db, kind)) await decide(lockId, kind);
  }

  /** Pages through `next` until it answers nothing new (or the sweep's bound): one decision each. */
  private async each(next: () => Promise<string[]>, decide: (key: string) => Promise<unknown>): Promise<void> {
    const seen = new Set<string>();
    while (seen.size < MAX_PER_SWEEP) {
      const fresh = (await next()).filter((key) => !seen.has(key));
      if (fresh.length === 0) return;
      for (const key of fresh) {
        seen.add(key);
        await decide(key);
      }
    }
  }
}
