import type { AppContext } from '../context.js';
import { inTransaction, type UnitOfWork } from '../db/transaction.js';
import { AttemptStopped, attemptDelivery } from './deliver.js';
import { fanOut, WEBHOOK_CHANNEL, WEBHOOK_OUTBOX_CHANNEL } from './outbox.js';
import { dueDeliveries, nextDue, type DeliveryRow } from './queries.js';

/**
 * Wakes whoever waits, or lets them wait no longer than they asked. A wake-up that finds nobody
 * waiting is kept for the next wait: a loop busy when its work arrived looks again at once.
 */
class Signal {
  private readonly waiting: Array<(woken: boolean) => void> = [];
  private kept = false;

  /** Resolves true once woken, false once `ms` passed first (never, for Infinity). */
  wait(ms: number): Promise<boolean> {
    if (this.kept) {
      this.kept = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        const index = this.waiting.indexOf(done);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(woken);
      };
      const timer = Number.isFinite(ms) ? setTimeout(() => done(false), ms) : undefined;
      this.waiting.push(done);
    });
  }

  /** Wakes every waiter. */
  notify(): void {
    if (this.waiting.length === 0) this.kept = true;
    for (const done of [...this.waiting]) done(true);
  }

  /** Wakes the longest waiting one. */
  notifyOne(): void {
    const first = this.waiting[0];
    if (first === undefined) this.kept = true;
    else first(true);
  }
}

/** A look that finds nothing waits twice as long as the one before it: WEBHOOK_POLL_MS, then 2×, 4×… up to this many times it. */
const IDLE_BACKOFF = 32;

/** How long to wait after `quietLooks` looks in a row found nothing (1 or more). */
function idleWait(pollMs: number, quietLooks: number): number {
  return pollMs * Math.min(IDLE_BACKOFF, 2 ** Math.max(0, quietLooks - 1));
}

/**
 * Delivers webhooks (issue 32 point 3): fans the outbox out whenever an entry's row is written to
 * it on this instance (the instance that wrote it wakes its own worker: src/webhooks/outbox.ts),
 * and runs WEBHOOK_CONCURRENCY attempt loops. On PostgreSQL each attempt holds its delivery's row
 * lock (`FOR UPDATE SKIP LOCKED`) for its whole length, so several instances never attempt one
 * delivery at once and a process that dies mid-attempt leaves the row to the others as it was;
 * SQLite serves one instance, which keeps the deliveries it is attempting in memory. `stop()`
 * aborts the attempts under way (recording none of them: they are made again) and waits for the
 * loops. Built by src/subscribers.ts beside the other background work.
 *
 * Idle, it costs little on each instance of a cluster (issue 33 point 2: four attempt loops and
 * the fan-out each looked every WEBHOOK_POLL_MS, ≈ 9 transactions a second an instance with no
 * endpoint at all). One attempt loop at a time polls, until the next retry falls due or for
 * WEBHOOK_POLL_MS, doubling while its looks find nothing (up to 32×); the others sleep until
 * woken: a delivery claimed wakes one more loop, which looks for the next, so the loops busy grow
 * with the work. The fan-out's poll backs off the same way. What the polls are left to find: a
 * row left by an instance that died, a retry another instance scheduled, a wake-up the bus lost.
 */
export class WebhookWorker {
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly fanOutSignal = new Signal();
  private readonly deliverSignal = new Signal();
  /** SQLite: the deliveries this process is attempting. */
  private readonly attempting = new Set<string>();
  private loops: Array<Promise<void>> = [];
  private unsubscribe: (() => void) | null = null;
  /** Whether an attempt loop is polling (the others sleep until woken). */
  private polling = false;
  /** The attempt loops' looks in a row that found nothing due, and were not woken since. */
  private quietLooks = 0;

  constructor(private readonly ctx: AppContext) {}

  start(): void {
    const unsubscribes = [
      this.ctx.bus.subscribe(WEBHOOK_OUTBOX_CHANNEL, () => this.fanOutSignal.notify()),
      this.ctx.bus.subscribe(WEBHOOK_CHANNEL, () => this.deliverSignal.notifyOne()),
    ];
    this.unsubscribe = () => unsubscribes.forEach((unsubscribe) => unsubscribe());
    this.loops = [this.fanOutLoop(), ...Array.from({ length: this.ctx.config.webhooks.concurrency }, () => this.deliverLoop())];
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe?.();
    this.abort.abort();
    this.fanOutSignal.notify();
    this.deliverSignal.notify();
    await Promise.all(this.loops);
  }

  private async fanOutLoop(): Promise<void> {
    let quietLooks = 0;
    while (!this.stopped) {
      let taken = 0;
      try {
        taken = await fanOut(this.ctx);
        if (taken > 0) this.deliverSignal.notifyOne();
      } catch (err) {
        if (!this.stopped) this.ctx.logger.error({ err }, 'webhook fan-out failed');
      }
      quietLooks = taken > 0 ? 0 : quietLooks + 1;
      if (this.stopped) return;
      if (await this.fanOutSignal.wait(idleWait(this.ctx.config.webhooks.pollMs, Math.max(1, quietLooks)))) quietLooks = 0;
    }
  }

  private async deliverLoop(): Promise<void> {
    /** Whether this loop attempted a delivery since it last slept. */
    let attemptedSince = false;
    while (!this.stopped) {
      let attempted = false;
      try {
        attempted = this.ctx.db.dialect === 'postgres' ? await this.attemptLocked() : await this.attemptInProcess();
      } catch (err) {
        if (!(err instanceof AttemptStopped) && !this.stopped) this.ctx.logger.error({ err }, 'webhook delivery failed');
      }
      // Attempted: look again at once (a later delivery of the same lock may be due now).
      if (attempted) {
        this.quietLooks = 0;
        attemptedSince = true;
      }
      if (attempted || this.stopped) continue;
      this.quietLooks += 1;
      if (this.polling) {
        // Its attempts may have set a retry sooner than the poller's wait ends (a failure, a wait for a
        // checkpoint): the poller looks again, and reads when the next falls due.
        if (attemptedSince) this.deliverSignal.notify();
        attemptedSince = false;
        if (await this.deliverSignal.wait(Infinity)) this.quietLooks = 0;
        continue;
      }
      attemptedSince = false;
      this.polling = true;
      try {
        if (await this.deliverSignal.wait(await this.untilNextDue())) this.quietLooks = 0;
      } finally {
        this.polling = false;
      }
    }
  }

  /** Milliseconds until the next pending delivery falls due (a retry, a wait for a checkpoint), or the idle wait if sooner. */
  private async untilNextDue(): Promise<number> {
    const idle = idleWait(this.ctx.config.webhooks.pollMs, this.quietLooks);
    try {
      const now = this.ctx.now();
      const due = await nextDue(this.ctx.db.kysely, now);
      return due === null ? idle : Math.min(idle, Math.max(1, Math.ceil((due - now) * 1000)));
    } catch {
      return idle;
    }
  }

  /** PostgreSQL: claims one due delivery with its row lock and attempts it inside that transaction. */
  private attemptLocked(): Promise<boolean> {
    return inTransaction(this.ctx.db, this.ctx.logger, async (uow) => {
      const [delivery] = await dueDeliveries(uow.db, this.ctx.now(), 1, { lock: true });
      if (!delivery) return false;
      this.deliverSignal.notifyOne(); // another loop looks for the next one
      await attemptDelivery(this.ctx, uow.db, delivery, (work) => work(uow), this.abort.signal);
      return true;
    });
  }

  /** SQLite (one instance): claims one due delivery in this process, attempts it, records the outcome in a transaction. */
  private async attemptInProcess(): Promise<boolean> {
    const candidates = await dueDeliveries(this.ctx.db.kysely, this.ctx.now(), this.ctx.config.webhooks.concurrency + 1, { exclude: [...this.attempting] });
    const delivery: DeliveryRow | undefined = candidates.find((d) => !this.attempting.has(d.id));
    if (!delivery) return false;
    this.attempting.add(delivery.id);
    this.deliverSignal.notifyOne(); // another loop looks for the next one
    try {
      const record = (work: (uow: UnitOfWork) => Promise<void>) => inTransaction(this.ctx.db, this.ctx.logger, work);
      await attemptDelivery(this.ctx, this.ctx.db.kysely, delivery, record, this.abort.signal);
    } finally {
      this.attempting.delete(delivery.id);
    }
    return true;
  }
}
