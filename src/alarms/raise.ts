import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import { newId } from '../crypto/random.js';
import type { UnitOfWork } from '../db/transaction.js';
import { describeAlarm, type AlarmKind } from './kinds.js';
import { mailAlarm } from './mail.js';
import { clearAlarm, openAlarm } from './queries.js';

/**
 * Raising and clearing one alarm inside the caller's transaction. Both are conditional
 * (src/alarms/queries.ts: a unique open row per lock and kind), so however many instances or
 * replays make the same change, only the transaction that made it audits it (ALARM_RAISED /
 * ALARM_CLEARED, on the live stream after commit), and only it emails the lock's administrators
 * (mail.ts). `detail` follows the words, e.g. " (15 %)".
 */
export async function raiseAlarm(ctx: AppContext, uow: UnitOfWork, lockId: string, kind: AlarmKind, at: number, detail = ''): Promise<boolean> {
  if (!(await openAlarm(uow.db, { id: newId(at * 1000), lockId, kind, at }))) return false;
  await recordAudit(ctx, uow, { lockId, type: 'ALARM_RAISED', actorUserId: null, message: `alarm: ${describeAlarm(kind)}${detail}`, details: { alarm: kind } });
  await mailAlarm(ctx, uow, lockId, kind, detail, at);
  return true;
}

export async function endAlarm(ctx: AppContext, uow: UnitOfWork, lockId: string, kind: AlarmKind, at: number, detail = ''): Promise<boolean> {
  if (!(await clearAlarm(uow.db, lockId, kind, at))) return false;
  await recordAudit(ctx, uow, { lockId, type: 'ALARM_CLEARED', actorUserId: null, message: `alarm cleared: ${describeAlarm(kind)}${detail}`, details: { alarm: kind } });
  return true;
}
