import type { AppContext } from '../context.js';
import type { UnitOfWork } from '../db/transaction.js';
import { claimReportTime, reportOvertaken } from './state.js';

/**
 * The order of one lock's reports (issue 33 point 2). With shared subscriptions a lock's reports
 * are spread over the instances, so one may be recorded before an earlier one; the lock's own
 * `ts` tells their order. One instance alone, or each hearing everything, records a lock's reports
 * in the order it hears them: there every report counts as the latest.
 */

/** Whether a lock's reports are spread over the instances (shared subscriptions on an external broker). */
export function reportsSpread(ctx: Pick<AppContext, 'config'>): boolean {
  return ctx.config.mqtt.kind === 'external' && ctx.config.mqttSharedSubscriptions;
}

/** A state or door event timed `ts`: true when no later one is recorded, `ts` then stored as the newest. */
export function isLatestReport(ctx: Pick<AppContext, 'config'>, uow: Pick<UnitOfWork, 'db'>, lockId: string, ts: number): Promise<boolean> {
  return reportsSpread(ctx) ? claimReportTime(uow.db, lockId, ts) : Promise.resolve(true);
}

/**
 * A bolt move the lock timed `ts` that is audited whatever its order (an operation it reports, the
 * state in a command's reply): true when a later state is recorded already, so the move must not
 * be stored over it. Claims nothing: the state report that follows may carry an earlier `ts`.
 */
export function isMoveOvertaken(ctx: Pick<AppContext, 'config'>, uow: Pick<UnitOfWork, 'db'>, lockId: string, ts: number): Promise<boolean> {
  return reportsSpread(ctx) ? reportOvertaken(uow.db, lockId, ts) : Promise.resolve(false);
}
