import { assertAllowed, canChangeSettings } from '../access/member-policy.js';
import { validateUnlockBetween } from '../access/schemas.js';
import type { UnlockBetweenWindow } from '../access/types.js';
import type { AuditClient } from '../audit/log-format.js';
import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import type { UnitOfWork } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { configChanged } from './config-changes.js';
import { unlockDurationError } from './policy.js';
import { findLockForUpdate, findMembership } from './queries.js';

export interface LockSettingsInput {
  lockId: string;
  /** When given, must be an active ADMIN of the lock (403; 404 when not a member). */
  actorUserId?: string;
  /** Seconds the lock stays unlocked after an unlock (shown as unlockTime). */
  unlockDuration?: number;
  /** The unlock-between window (shown as unlockBetweenWindow); null removes it. */
  unlockBetween?: UnlockBetweenWindow | null;
  /** The actor's client, for the SETTING_CHANGED entry. */
  client?: AuditClient;
}

/**
 * MUTATE_SETTING: the on-lock settings, which travel to the lock in its config. Validates both
 * values (400), stores them in the caller's transaction, takes the next config version and
 * announces `lock-config` after commit. 404 unknown lock.
 */
export async function updateLockSettings(ctx: AppContext, uow: UnitOfWork, input: LockSettingsInput): Promise<void> {
  const { lockId, unlockDuration, unlockBetween } = input;
  if (unlockDuration === undefined && unlockBetween === undefined) throw errors.validation('give unlockDuration or unlockBetween');
  if (unlockDuration !== undefined) {
    const error = unlockDurationError(unlockDuration);
    if (error !== null) throw errors.validation(error);
  }
  if (unlockBetween !== undefined && unlockBetween !== null) {
    const error = validateUnlockBetween(unlockBetween);
    if (error !== null) throw errors.validation(error);
  }
  const lock = await findLockForUpdate(uow.db, ctx.db.dialect, lockId);
  if (!lock) throw errors.notFound('lock');
  if (input.actorUserId !== undefined) {
    const actor = await findMembership(uow.db, lockId, input.actorUserId);
    if (!actor) throw errors.notFound('lock');
    assertAllowed(canChangeSettings(actor, ctx.now()));
  }
  await uow.db
    .updateTable('locks')
    .set({
      ...(unlockDuration !== undefined ? { unlock_time: unlockDuration } : {}),
      ...(unlockBetween !== undefined ? { unlock_between: unlockBetween === null ? null : JSON.stringify(normaliseWindow(unlockBetween)) } : {}),
      updated: ctx.now(),
    })
    .where('id', '=', lockId)
    .execute();
  await recordSettingChanged(ctx, uow, {
    lockId,
    actorUserId: input.actorUserId ?? null,
    changed: { ...(unlockDuration !== undefined ? { unlockDuration } : {}), ...(unlockBetween !== undefined ? { unlockBetween } : {}) },
    ...(input.client ? { client: input.client } : {}),
  });
  await configChanged(ctx, uow, lockId);
}

/**
 * SETTING_CHANGED (the SDK's AuditEvent): which settings changed, to what, by whom. `changed`
 * names the settings and their new values (never secrets: settings hold none).
 */
export async function recordSettingChanged(ctx: AppContext, uow: UnitOfWork, change: { lockId: string; actorUserId: string | null; changed: Record<string, unknown>; client?: AuditClient }): Promise<void> {
  const names = Object.keys(change.changed);
  await recordAudit(ctx, uow, {
    lockId: change.lockId,
    type: 'SETTING_CHANGED',
    actorUserId: change.actorUserId,
    message: `settings changed: ${names.join(', ')}`,
    details: { changed: change.changed },
    ...(change.client ? { client: change.client } : {}),
  });
}

/** Stored with its exceptions always present (the request may omit them; responses show `[]`). */
function normaliseWindow(window: UnlockBetweenWindow): Required<UnlockBetweenWindow> {
  return { start: window.start, end: window.end, timezone: window.timezone, days: [...window.days], exceptions: [...(window.exceptions ?? [])] };
}
