import { AlarmWatch } from './alarms/watch.js';
import { startupStep } from './config/startup-step.js';
import type { AppContext } from './context.js';
import { startLockLinkSubscribers, type LockLinkHooks } from './lock-link/subscribers.js';
import { recordOperationReport } from './operations/lock-reports.js';
import { keypadUse } from './keypad-codes/uses.js';
import { QueueDelivery } from './operations/queue-delivery.js';
import { WebhookWorker } from './webhooks/worker.js';

/** What `startSubscribers` started; `stop` ends it before the context closes. */
export interface Subscribers {
  stop(): Promise<void>;
  /** Resolves once the lock reports received so far are recorded (what "quiet" means for a test). */
  lockReportsRecorded(): Promise<void>;
  /** Runs one sweep of the timed alarms now (src/alarms/watch.ts), by the service's clock: what a test calls once it moved the clock. */
  sweepAlarms(): Promise<void>;
  /** The timed sweeps this instance ran: with an external broker, one instance's (the turn's holder) for the cluster. */
  sweptHere(): { operationQueue: number; configs: number };
}

/**
 * Starts every feature's background subscribers on the finished context, beside the routes:
 * the lock link's (lock reports → database and audit; lock configs → broker), the delivery of
 * queued operations (src/operations/queue-delivery.ts), which a lock coming online sets off, and
 * the webhook worker (outbox → deliveries → receivers) and the alarm watch (src/alarms/watch.ts).
 */
export async function startSubscribers(ctx: AppContext, testHooks: Pick<LockLinkHooks, 'holdReport'> = {}): Promise<Subscribers> {
  const setting = ctx.config.mqtt.kind === 'external' ? 'MQTT_URL' : 'MQTT_PORT / HOST';
  const delivery = new QueueDelivery(ctx);
  let lockLink;
  try {
    lockLink = await startupStep(setting, 'cannot start the lock link', () => startLockLinkSubscribers(ctx, {
      onLockOnline: (lockId) => delivery.lockOnline(lockId),
      recordOperation: (lockId, report) => recordOperationReport(ctx, lockId, report, (uow, id, keypad) => keypadUse(ctx, uow, id, keypad)),
      ...testHooks,
    }));
  } catch (err) {
    await delivery.stop();
    throw err;
  }
  const link = lockLink;
  const webhooks = new WebhookWorker(ctx);
  webhooks.start();
  const alarms = new AlarmWatch(ctx, ctx.config.alarmSweepMs);
  alarms.start();
  let stopping: Promise<void> | undefined;
  // The alarm watch first; deliveries before the link: they wait on its replies.
  const stop = async () => {
    await alarms.stop();
    await Promise.all([webhooks.stop(), delivery.stop().then(() => link.stop())]);
  };
  return {
    stop: () => (stopping ??= stop()),
    lockReportsRecorded: () => link.recorded(),
    sweepAlarms: () => alarms.sweep(),
    sweptHere: () => ({ operationQueue: delivery.sweptHere, configs: link.configSweepsHere() }),
  };
}
