import type { AppContext } from '../context.js';
import { recordKeypadSync } from '../keypad-codes/sync.js';
import { confirmLateCommand } from '../locks/command-life.js';
import type { LockLinkHandlers } from './client.js';
import type { OperationReport } from '../device-protocol/payloads.js';
import { syncLockConfigs } from './config-sync.js';
import { cutOffDecommissionedLocks } from './cut-off.js';
import { KeyedQueue, QueueFullError } from './keyed-queue.js';
import { ConfigReconciler } from './reconcile.js';
import { ReportThrottle } from '../limits/report-throttle.js';
import { DisconnectSweep } from './disconnect-sweep.js';
import { PresenceBatch } from './presence-batch.js';
import { recordDevice, recordDirectAccess, recordDoorEvent, recordPresences, recordState } from './reports.js';

/**
 * The lock link's subscribers, started beside the routes once the context is whole: the handlers
 * that turn lock reports into database changes and audit entries, the config sync, and the cut-off
 * of decommissioned locks (./cut-off.ts). Stopping runs: stop config sync and cut-offs → close the
 * link → finish queued reports; the context then closes the broker.
 */

/** What other features hear of the link (the composition's subscribers pass them in). */
export interface LockLinkHooks {
  /** A lock came online, as this instance stored it (src/operations/queue-delivery.ts delivers what waits for it). */
  onLockOnline?(lockId: string): void;
  /** A lock reported what it did on its own (protocol 1.3 `operation`): recorded in the lock's queue (src/operations/lock-reports.ts records it). */
  recordOperation?(lockId: string, report: OperationReport): Promise<unknown>;
  /**
   * Tests: a report is held back until this resolves, before it joins the lock's queue, so a test
   * can have one instance record a lock's reports out of order (issue 33 point 2).
   */
  holdReport?(lockId: string, kind: HeldReportKind): Promise<void> | undefined;
}

export type HeldReportKind = 'state' | 'event' | 'operation';

function reportHandlers(ctx: AppContext, queue: KeyedQueue, throttle: ReportThrottle, reconciler: ConfigReconciler, sweep: DisconnectSweep, hooks: LockLinkHooks): LockLinkHandlers {
  const presences = new PresenceBatch((changes) => recordPresences(ctx, changes, sweep.pending));
  const record = (lockId: string, what: string, task: () => Promise<unknown>, kind?: HeldReportKind) => (): void => {
    // Heard before the lock was decommissioned, queued or held back until after: not recorded.
    const queued = () => queue.run(lockId, () => (ctx.link.isRetired(lockId) ? Promise.resolve() : task())).catch((err: unknown) => {
      if (err instanceof QueueFullError) ctx.logger.warn({ lockId }, `lock ${what} dropped: the lock reports faster than they can be recorded`);
      else ctx.logger.error({ err, lockId }, `recording lock ${what} failed`);
    });
    const held = kind === undefined ? undefined : hooks.holdReport?.(lockId, kind);
    if (held === undefined) void queued();
    else void held.then(queued);
  };
  const counted = ctx.metrics.lockReports;
  return {
    onPresence: (lockId, online) => {
      counted.inc({ kind: 'online' });
      // What waits for the lock goes once its coming online is stored, by the instance that stored it (with shared
      // subscriptions every presence report this instance records reaches here, most of them changing nothing).
      throttle.latest(lockId, 'presence', record(lockId, 'presence', async () => {
        if ((await presences.record(lockId, online)) && online) hooks.onLockOnline?.(lockId);
      }));
    },
    onState: (lockId, state) => {
      counted.inc({ kind: 'state' });
      throttle.latest(lockId, 'state', record(lockId, 'state', async () => {
        await recordState(ctx, lockId, state);
        await recordKeypadSync(ctx, lockId, state);
      }, 'state'));
    },
    onEvent: (lockId, event) => {
      counted.inc({ kind: 'event' });
      throttle.event(lockId, record(lockId, 'event', () => recordDoorEvent(ctx, lockId, event), 'event'));
    },
    // Not throttled: the link hands on only a change of what the lock says it is.
    onDevice: (lockId, device) => record(lockId, 'device', () => recordDevice(ctx, lockId, device))(),
    // Not throttled either: only a change of the announced addresses is handed on.
    onDirectAccess: (lockId, endpoints) => record(lockId, 'LAN addresses', () => recordDirectAccess(ctx, lockId, endpoints))(),
    // Not throttled: what a lock kept while cut off arrives in a burst and must not be dropped; its outbox is bounded, each report recorded once.
    onOperation: (lockId, report) => {
      counted.inc({ kind: 'operation' });
      const recordOperation = hooks.recordOperation;
      if (recordOperation) record(lockId, 'operation', () => recordOperation(lockId, report), 'operation')();
    },
    onConfigVersion: (lockId, version) => {
      reconciler.checkVersion(lockId, version).catch((err: unknown) => ctx.logger.error({ err, lockId }, 'reconciling a lock config failed'));
    },
    onReconnected: () => reconciler.republishAll('reconnected'),
    // Not throttled: only a command the service sent (its id on a late marker) changes anything.
    onUnclaimedReply: (lockId, commandId, timedOutHere) => record(lockId, 'late reply', () => confirmLateCommand(ctx, lockId, commandId, timedOutHere))(),
  };
}

export interface LockLinkSubscribers {
  /** Stops it all (before the context closes). */
  stop(): Promise<void>;
  /**
   * Resolves once every report handed to the recorders so far is recorded (or failed), and the
   * disconnects owed since the start (./disconnect-sweep.ts). Reports held back by the throttle
   * until the lock's next window are not waited for.
   */
  recorded(): Promise<void>;
  /** Sweeps of the configs this instance ran (with an external broker, while it held the cluster's turn). */
  configSweepsHere(): number;
}

/** Makes the link listen: reports are recorded and configs follow the database. */
export async function startLockLinkSubscribers(ctx: AppContext, hooks: LockLinkHooks = {}): Promise<LockLinkSubscribers> {
  const { config, link, broker } = ctx;
  // Nothing survives a restart of the embedded broker: locks the database still shows connected
  // are not (those connected since will be heard again from their retained `online`).
  // With an external broker, only what a crashed start left (migration 0220's marks) is swept.
  const sweep = await DisconnectSweep.start(ctx, broker !== null);
  const queue = new KeyedQueue();
  const throttle = new ReportThrottle({
    points: config.limits.reportsPerLock.points,
    windowMs: config.limits.reportsPerLock.durationSeconds * 1000,
    now: () => ctx.now() * 1000,
    onThrottled: (lockId) => ctx.logger.warn({ lockId }, 'lock reports held back: the lock reports faster than its limit (RATE_REPORTS_PER_LOCK)'),
  });
  const reconciler = new ConfigReconciler(ctx, {
    pace: { pageSize: 200, perSecond: config.lockOps.republishPerSecond },
    sweepSeconds: config.lockOps.sweepSeconds,
    // An external broker: one instance's sweep republishes for the cluster (each embedded broker needs its own instance's).
    sweepInTurn: config.mqtt.kind === 'external',
  });
  // Decommissioned locks are not heard, the retained reports the broker replays on subscribing included.
  let stopCutOff: (() => Promise<void>) | undefined;
  try {
    stopCutOff = await cutOffDecommissionedLocks(ctx);
    await link.listen(reportHandlers(ctx, queue, throttle, reconciler, sweep, hooks));
  } catch (err) {
    await stopCutOff?.();
    await sweep.stop();
    await reconciler.stop();
    throttle.close();
    throw err;
  }

  const unsubscribe = syncLockConfigs(ctx);
  // In the background: start-up need not wait for every lock's config. With an external broker
  // every config is published again now: delivery must not depend on what the broker kept (issue
  // 16). The embedded broker starts with this process, empty, before any lock is back: each lock
  // then says the version it holds as it comes online and gets its config only when that is older
  // (reconcile.ts), not 20,000 configs at once in the middle of the reconnect storm.
  reconciler.start(broker === null);
  return {
    async stop() {
      unsubscribe();
      await stopCutOff();
      await sweep.stop();
      await reconciler.stop();
      await link.close();
      await queue.drain();
      throttle.close();
    },
    recorded: async () => {
      await sweep.finished();
      await queue.drain();
    },
    configSweepsHere: () => reconciler.sweptHere,
  };
}
