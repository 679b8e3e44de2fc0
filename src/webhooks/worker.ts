import type { AppContext } from '../context.js';
import { inTransaction, type UnitOfWork } from '../db/transaction.js';
import { AttemptStopped, attemptDelivery } from './deliver.js';
import { fanOut, WEBHOOK_CHANNEL, WEBHOOK_OUTBOX_CHANNEL } from './outbox.js';
import { dueDeliveries, nextDue, type DeliveryRow } from './queries.js';

/** Wakes whoever waits, or lets them wait no longer than they asked. */
class Signal {
  private readonly waiting = new Set<() => void>();

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiting.add(done);
    });
  }

  notify(): void {
    for (const done of [...this.waiting]) done();
  }
}

/**
 * Delivers webhooks (issue 32 point 3): fans the outbox out whenever an entry's row is written to
 * it, on any instance (and every WEBHOOK_POLL_MS, for retries falling due and a message the bus
 * lost), and runs
 * WEBHOOK_CONCURRENCY attempt loops. On PostgreSQL each attempt holds its delivery's row lock
 * (`FOR UPDATE SKIP LOCKED`) for its whole length, so several instances never attempt one
 * delivery at once and a process that dies mid-attempt leaves the row to the others as it was;
 * SQLite serves one instance, which keeps the deliveries it is attempting in memory. `stop()`
 * aborts the attempts under way (recording none of them: they are made again) and waits for the
 * loops. Built by src/subscribers.ts beside the other background work.
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

  constructor(private readonly ctx: AppContext) {}

  start(): void {
    const unsubscribes = [
      this.ctx.bus.subscribe(WEBHOOK_OUTBOX_CHANNEL, () => this.fanOutSignal.notify()),
      this.ctx.bus.subscribe(WEBHOOK_CHANNEL, () => this.deliverSignal.notify()),
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
    while (!this.stopped) {
      try {
        if ((await fanOut(this.ctx)) > 0) this.deliverSignal.notify();
      } catch (err) {
        if (!this.stopped) this.ctx.logger.error({ err }, 'webhook fan-out failed');
      }
      if (!this.stopped) await this.fanOutSignal.wait(this.ctx.config.webhooks.pollMs);
    }
  }

  private async deliverLoop(): Promise<void> {
    while (!this.stopped) {
      let attempted = false;
      try {
        attempted = this.ctx.db.dialect === 'postgres' ? await this.attemptLocked() : await this.attemptInProcess();
      } catch (err) {
        if (!(err instanceof AttemptStopped) && !this.stopped) this.ctx.logger.error({ err }, 'webhook delivery failed');
      }
      if (attempted) this.deliverSignal.notify(); // a later delivery of the same lock may be due now
      else if (!this.stopped) await this.deliverSignal.wait(await this.untilNextDue());
    }
  }

  /** Milliseconds until the next pending delivery falls due (a retry, a wait for a checkpoint), WEBHOOK_POLL_MS at most. */
  private async untilNextDue(): Promise<number> {
    const poll = this.ctx.config.webhooks.pollMs;
    try {
      const now = this.ctx.now();
      const due = await nextDue(this.ctx.db.kysely, now);
      return due === null ? poll : Math.min(poll, Math.max(1, Math.ceil((due - now) * 1000)));
    } catch {
      return poll;
    }
  }

  /** PostgreSQL: claims one due delivery with its row lock and attempts it inside that transaction. */
  private attemptLocked(): Promise<boolean> {
    return inTransaction(this.ctx.db, this.ctx.logger, async (uow) => {
      const [delivery] = await dueDeliveries(uow.db, this.ctx.now(), 1, { lock: true });
      if (!delivery) return false;
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
    try {
      const record = (work: (uow: UnitOfWork) => Promise<void>) => inTransaction(this.ctx.db, this.ctx.logger, work);
      await attemptDelivery(this.ctx, this.ctx.db.kysely, delivery, record, this.abort.signal);
    } finally {
      this.attempting.delete(delivery.id);
    }
    return true;
  }
}
