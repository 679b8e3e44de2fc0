import type { AppContext } from '../context.js';
import { inTransaction } from '../db/transaction.js';
import { ClusterTurn } from '../db/turns.js';
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
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** The timer's latest turn (its claim, then its sweep): stop() waits for it before giving the turn up. */
  private inTurn: Promise<void> | undefined;
  private readonly turn: ClusterTurn;

  constructor(private readonly ctx: AppContext, private readonly intervalMs: number) {
    this.turn = new ClusterTurn(ctx.db.kysely, ALARM_SWEEP_TURN, ctx.instanceName, (3 * intervalMs) / 1000, ctx.now, ctx.bus);
  }

  start(): void {
    if (this.intervalMs <= 0 || this.timer !== undefined) return;
    this.timer = setInterval(() => void (this.inTurn = this.sweepInTurn()), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    // A claim still on its way would take the turn after the release below and hold it, unused, for three intervals (review).
    await this.inTurn;
    await this.running;
    // Another instance sweeps from its next interval on, not at the end of this one's turn.
    await this.turn.release().catch((err: unknown) => this.ctx.logger.warn({ err }, 'could not give up the alarm sweep turn'));
  }

  /** The timer's sweep: only while this instance holds the cluster's turn. */
  private async sweepInTurn(): Promise<void> {
    try {
      if (!(await this.turn.take())) return;
    } catch (err) {
      this.ctx.logger.error({ err }, 'alarm sweep failed');
      return;
    }
    if (this.timer !== undefined) await this.sweep();
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
