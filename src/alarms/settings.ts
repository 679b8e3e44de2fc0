import { assertAllowed, canChangeSettings, canReadAdminData } from '../access/member-policy.js';
import type { Caller } from '../accounts/caller.js';
import { findReaderEnrolment } from '../audit/queries.js';
import type { AppContext } from '../context.js';
import { inTransaction, type Executor } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import type { AlarmKind } from './kinds.js';
import { readThresholdRow, storeAlarmSettings } from './queries.js';
import { effectiveThresholds, mailChoices, mailOff, type AlarmThresholds } from './thresholds.js';

/** A lock's alarm settings: its thresholds and, per kind, whether its administrators are emailed. */
export interface AlarmSettingsValue extends AlarmThresholds {
  mail: Record<AlarmKind, boolean>;
}

export type AlarmSettingsUpdate = Partial<AlarmThresholds> & { mail?: Partial<Record<AlarmKind, boolean>> };

async function settingsOf(db: Executor, lockId: string): Promise<AlarmSettingsValue> {
  const row = await readThresholdRow(db, lockId);
  return { ...effectiveThresholds(row), mail: mailChoices(row) };
}

/**
 * GET and PUT /device/{id}/alarm-settings, for the lock's active admins (404 for a non-member, 403
 * for a USER). A change applies from the next sweep or report on: an open alarm stays open until
 * its condition ends.
 */
export async function readAlarmSettings(ctx: AppContext, caller: Caller, lockId: string): Promise<AlarmSettingsValue> {
  const db = ctx.db.kysely;
  const member = await findReaderEnrolment(db, lockId, caller.userId);
  if (!member) throw errors.notFound('lock');
  assertAllowed(canReadAdminData(member, ctx.now()));
  return settingsOf(db, lockId);
}

export function changeAlarmSettings(ctx: AppContext, caller: Caller, lockId: string, change: AlarmSettingsUpdate): Promise<AlarmSettingsValue> {
  return inTransaction(ctx.db, ctx.logger, async (uow) => {
    const member = await findReaderEnrolment(uow.db, lockId, caller.userId);
    if (!member) throw errors.notFound('lock');
    const now = ctx.now();
    assertAllowed(canChangeSettings(member, now));
    const stored = await settingsOf(uow.db, lockId);
    const { mail, ...thresholds } = change;
    const merged = { ...stored, ...thresholds, mail: { ...stored.mail, ...mail } };
    await storeAlarmSettings(uow.db, lockId, { ...merged, mailOff: mailOff(merged.mail) }, now);
    return merged;
  });
}
