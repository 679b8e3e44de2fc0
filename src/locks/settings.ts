import { assertAllowed, canChangeSettings } from '../access/member-policy.js';
import { validateUnlockBetween } from '../access/schemas.js';
import type { UnlockBetweenWindow } from '../access/types.js';
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
  await configChanged(ctx, uow, lockId);
}

/** Stored with its exceptions always present (the request may omit them; responses show `[]`). */
function normaliseWindow(window: UnlockBetweenWindow): Required<UnlockBetweenWindow> {
  return { start: window.start, end: window.end, timezone: window.timezone, days: [...window.days], exceptions: [...(window.exceptions ?? [])] };
}
