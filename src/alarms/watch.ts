import type { AppContext } from '../context.js';
import { inTransaction } from '../db/transaction.js';
import { TurnTimer } from '../db/turns.js';
import { decideTimed } from './conditions.js';
import type { AlarmKind } from './kinds.js';
import { heldOpenCandidates, locksWithOpenAlarm, offlineCandidates, staleAlarms } from './queries.js';
import { DEFAULT_THRESHOLDS } from './thresholds.js';

/** The cluster's turn to sweep (src/db/turns.ts). */
export const ALARM_SWEEP_TURN = 'alarm-sweep';

/** Locks looked at in one sweep, at most, per kind of question (a sweep after it takes the rest). */
const MAX_PER_SWEEP = 2000;

/**
 * The alarms that time raises or clears: `held_open` and `offline` once their threshold passes,
 * `refused_unlocks` once its window does, `keypad_locked_out` once the keypad's lockout is over. Every `intervalMs` (ALARM_SWEEP_MS) it asks the database
 * which locks' stored state now crosses a threshold, by the service's clock (ctx.now), and decides
 * each on its row (conditions.ts). It keeps no timer per lock: a restarted service finds the same
 * doors open and the same locks offline. One instance of a cluster sweeps for all (issue 33 point
 * 2): the one holding the turn `alarm-sweep` (src/db/turns.ts), for three intervals at a time,
 * renewed as it sweeps; the others look at each interval in memory, and ask the database only
 * when that turn has run out (its holder stopped or crashed). Should two sweep at once all the
 * same, the unique open alarm per lock and kind lets one raise it.
 */
export class AlarmWatch {
  private running: Promise<void> | undefined;
  private readonly timer: TurnTimer;

  constructor(private readonly ctx: AppContext, intervalMs: number) {
    this.timer = new TurnTimer(ctx, { turn: ALARM_SWEEP_TURN, intervalMs, what: 'the alarm sweep', run: () => this.sweep() });
  }

  start(): void {
    this.timer.start();
  }

  async stop(): Promise<void> {
    await this.timer.stop(() => this.running ?? Promise.resolve());
  }

  /** One sweep now, whoever holds the turn (a sweep already running is joined, not doubled); never rejects. */
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
