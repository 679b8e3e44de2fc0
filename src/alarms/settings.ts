import { assertAllowed, canChangeSettings, canReadAdminData } from '../access/member-policy.js';
import type { Caller } from '../accounts/caller.js';
import { findReaderEnrolment } from '../audit/queries.js';
import type { AppContext } from '../context.js';
import { inTransaction } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { thresholdsOf } from './conditions.js';
import { storeThresholds } from './queries.js';
import type { AlarmThresholds } from './thresholds.js';

/**
 * A lock's alarm settings (GET and PUT /device/{id}/alarm-settings): its thresholds, for its
 * active admins (404 for a non-member, 403 for a USER). A change applies from the next sweep on:
 * an open alarm stays open until its condition ends.
 */
export async function readAlarmSettings(ctx: AppContext, caller: Caller, lockId: string): Promise<AlarmThresholds> {
  const db = ctx.db.kysely;
  const member = await findReaderEnrolment(db, lockId, caller.userId);
  if (!member) throw errors.notFound('lock');
  assertAllowed(canReadAdminData(member, ctx.now()));
  return thresholdsOf({ db }, lockId);
}

export function changeAlarmSettings(ctx: AppContext, caller: Caller, lockId: string, change: Partial<AlarmThresholds>): Promise<AlarmThresholds> {
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const member = await findReaderEnrolment(uow.db, lockId, caller.userId);
    if (!member) throw errors.notFound('lock');
    const now = ctx.now();
    assertAllowed(canChangeSettings(member, now));
    const merged = { ...(await thresholdsOf(uow, lockId)), ...change };
    await storeThresholds(uow.db, lockId, merged, now);
    return merged;
  });
}
