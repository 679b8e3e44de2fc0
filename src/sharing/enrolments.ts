import { isDeepStrictEqual } from 'node:util';
import { assertAllowed, type Denied } from '../access/member-policy.js';
import { validateSchedule } from '../access/schemas.js';
import type { MemberRole, TimeRequirement } from '../access/types.js';
import { findUserById } from '../accounts/queries.js';
import type { AuditClient } from '../audit/log-format.js';
import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import type { UnitOfWork } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { returnToUnclaimed } from '../locks/claim.js';
import { configChanged } from '../locks/config-changes.js';
import { findLockForUpdate, findMembership, findMemberships, insertMember, lockRowsForUpdate, type LockRow, type Membership } from '../locks/queries.js';
import { dropHeldShares, holdShare, scheduleDetail, storedSchedule } from './held-shares.js';
import { isVisitor, VISITOR_SHARE_SECONDS } from './visitors.js';
import {
  accessWindowError, canAddMember, LAST_ADMIN, canManageMembers, canRemoveMembers, demotesLastAdmin, membershipChange, outlastsGranter, shareWaitsForVerification, type MembershipChange,
} from './policy.js';
import { countMembers } from './queries.js';

/**
 * Changes of who may use a lock, for the signed operations (ADD_USER, REMOVE_USER) and account
 * deletion. Each runs inside the caller's transaction, checks the actor's rights itself, audits,
 * takes the lock's next config version and, after commit, announces `lock-config` so the lock link
 * publishes the new configuration to the lock.
 *
 * A refusal (403, 409) is a value (`Denied`) from the `try…` forms, which the signed operations
 * audit (src/operations/); `addMember` and `removeMembers` throw it as its AppError instead. A
 * request that names nothing there (404) or is malformed (400) throws either way.
 */

/** The lock (row-locked on PostgreSQL) and the actor's enrolment; 404 when either is missing. */
async function lockAndActor(ctx: AppContext, uow: UnitOfWork, lockId: string, actorUserId: string): Promise<{ lock: LockRow; actor: Membership }> {
  const lock = await findLockForUpdate(uow.db, ctx.db.dialect, lockId);
  const actor = lock && (await findMembership(uow.db, lockId, actorUserId));
  if (!lock || !actor) throw errors.notFound('lock');
  return { lock, actor };
}

const forbidden = (reason: string): Denied => ({ allowed: false, status: 403, reason });

export interface AddMemberInput {
  lockId: string;
  actorUserId: string;
  userId: string;
  /** Default USER (decisions §4): adding an ADMIN without a role demotes them. */
  role?: MemberRole;
  /** Unix seconds; null or absent = immediately. */
  start?: number | null;
  /** Unix seconds; null or absent = never expires. */
  end?: number | null;
  /** The share's own weekly hours (shared decisions §8): null clears them; absent keeps what the share had (none for a new one). */
  schedule?: TimeRequirement[] | null;
  /** The actor's client, for the audit entry (absent: no request of theirs). */
  client?: AuditClient;
}

export interface AddMemberResult {
  change: MembershipChange;
}

/**
 * ADD_USER: enrols `userId` (LOCK_SHARED), changes the role of an enrolled user
 * (USER_PROMOTED / USER_DEMOTED) or, with the same role, replaces their access window.
 * Refused (403) unless the actor is an active ADMIN, when a time-limited one grants past their own
 * end, or when a member changes their own window; refused (409) when it demotes the last ADMIN.
 * Throws 404 unknown lock or user, or actor not a member; 400 bad window.
 */
export async function tryAddMember(ctx: AppContext, uow: UnitOfWork, input: AddMemberInput): Promise<({ allowed: true } & AddMemberResult) | Denied> {
  const role = input.role ?? 'USER';
  const start = input.start ?? null;
  const { lockId, actorUserId, userId, client } = input;
  const { actor } = await lockAndActor(ctx, uow, lockId, actorUserId);
  const now = ctx.now();
  const allowed = canAddMember(actor, now);
  if (!allowed.allowed) return allowed;
  // A visitor's access is time-limited and a USER's (src/sharing/visitors.ts): no end → a day from its start.
  const visitor = await isVisitor(uow.db, userId);
  if (visitor && role !== 'USER') return forbidden('a visitor can only be a USER');
  const end = input.end ?? (visitor ? Math.max(start ?? now, now) + VISITOR_SHARE_SECONDS : null);
  const windowError = accessWindowError(start, end) ?? (input.schedule == null ? null : validateSchedule(input.schedule));
  if (windowError !== null) throw errors.validation(windowError);
  if (outlastsGranter(actor, { end })) return forbidden('an admin whose access ends cannot grant access that ends later');
  const user = await findUserById(uow.db, userId);
  if (!user) throw errors.notFound('user');

  const existing = await findMembership(uow.db, lockId, userId);
  if (existing === undefined && shareWaitsForVerification(user)) {
    await holdShare(ctx, uow, { lockId, actorUserId, userId, role, start, end, ...scheduleDetail(input.schedule), ...(client ? { client } : {}) });
    return { allowed: true, change: 'LOCK_SHARED' };
  }
  const change = membershipChange(existing?.role, role);
  // An ADMIN whose access ends must not lift the end themselves, nor by stepping down; stepping down with the same window and leaving stay open.
  const schedule = input.schedule === undefined ? (existing?.schedule ?? null) : input.schedule;
  const scheduleChanged = existing !== undefined && !isDeepStrictEqual(schedule, existing.schedule);
  if (existing !== undefined && userId === actorUserId && (change === 'WINDOW_UPDATED' || start !== existing.start || end !== existing.end || scheduleChanged)) {
    return forbidden('members cannot change their own access window');
  }
  if (demotesLastAdmin(existing, { role, start, end }, (await countMembers(uow.db, lockId, now)).adminCount, now)) return LAST_ADMIN;
  if (existing === undefined) {
    await insertMember(uow.db, { lock_id: lockId, user_id: userId, role, starts_at: start, ends_at: end, alias: null, favourite: 0, colour: null, schedule: storedSchedule(schedule), created: now, updated: now });
  } else {
    await uow.db.updateTable('lock_members').set({ role, starts_at: start, ends_at: end, schedule: storedSchedule(schedule), updated: now }).where('lock_id', '=', lockId).where('user_id', '=', userId).execute();
  }
  await recordAudit(ctx, uow, {
    lockId,
    type: change === 'WINDOW_UPDATED' ? 'LOCK_SHARED' : change,
    actorUserId,
    subjectUserId: userId,
    ...(change === 'WINDOW_UPDATED' ? { message: 'access window updated' } : {}),
    details: { role, start, end, ...scheduleDetail(input.schedule) },
    ...(client ? { client } : {}),
  });
  await configChanged(ctx, uow, lockId);
  return { allowed: true, change };
}

/** tryAddMember, throwing a refusal as its AppError (403, 409). */
export async function addMember(ctx: AppContext, uow: UnitOfWork, input: AddMemberInput): Promise<AddMemberResult> {
  const outcome = await tryAddMember(ctx, uow, input);
  assertAllowed(outcome);
  return { change: outcome.change };
}

export interface RemoveMembersInput {
  lockId: string;
  actorUserId: string;
  userIds: readonly string[];
  client?: AuditClient;
}

export interface RemoveMembersResult {
  /** The users whose enrolment ended (ids that were not enrolled are ignored). */
  removed: string[];
  /** True when nobody is left: the lock is unclaimed again and its registration key claims it (shared decisions §8). */
  lockBecameUnowned: boolean;
}

/**
 * REMOVE_USER: any member may remove themselves, an active ADMIN anyone (LOCK_REVOKED each);
 * others are refused (403). The last ADMIN cannot leave while others remain (refused, 409). When
 * nobody is left the lock is unclaimed again (src/locks/claim.ts) and its held shares go: its
 * registration key claims it anew. Throws 404 unknown lock, actor not a member, or no listed user
 * enrolled.
 */
export async function tryRemoveMembers(ctx: AppContext, uow: UnitOfWork, input: RemoveMembersInput): Promise<({ allowed: true } & RemoveMembersResult) | Denied> {
  const { lockId, actorUserId } = input;
  const client = input.client ? { client: input.client } : {};
  const { lock, actor } = await lockAndActor(ctx, uow, lockId, actorUserId);
  const now = ctx.now();
  const requested = [...new Set(input.userIds)];
  // Asking about others is an ADMIN's business: a USER learns nothing about who else is enrolled.
  if (requested.some((id) => id !== actorUserId)) {
    const allowed = canManageMembers(actor, now);
    if (!allowed.allowed) return allowed;
  }
  const targets = await findMemberships(uow.db, lockId, requested);
  // An invitee whose shares are held (src/sharing/held-shares.ts) is revoked too: they must not come back on verification.
  const heldRevoked = requested.some((id) => id !== actorUserId) ? await dropHeldShares(uow.db, lockId, requested) : [];
  if (targets.length === 0 && heldRevoked.length === 0) throw errors.notFound('member');

  const decision = canRemoveMembers(actor, targets, { ...(await countMembers(uow.db, lockId, now)), now });
  if (!decision.allowed) return decision;
  const removed = targets.map((t) => t.userId);
  if (removed.length > 0) await uow.db.deleteFrom('lock_members').where('lock_id', '=', lockId).where('user_id', 'in', removed).execute();
  const unclaimed = decision.lockBecomesUnowned ? { message: 'the last member left: the lock is unclaimed and its registration key claims it again' } : {};
  for (const userId of removed) {
    await recordAudit(ctx, uow, { lockId, type: 'LOCK_REVOKED', actorUserId, subjectUserId: userId, ...unclaimed, details: { role: targets.find((t) => t.userId === userId)!.role }, ...client });
  }
  for (const userId of heldRevoked) await recordAudit(ctx, uow, { lockId, type: 'LOCK_REVOKED', actorUserId, subjectUserId: userId, details: { held: true }, ...client });
  if (decision.lockBecomesUnowned) {
    await returnToUnclaimed(uow.db, lockId, now);
    await dropHeldShares(uow.db, lockId);
  } else if (lock.owner_user_id !== null && removed.includes(lock.owner_user_id)) {
    await uow.db.updateTable('locks').set({ owner_user_id: null, updated: now }).where('id', '=', lockId).execute();
  }
  await configChanged(ctx, uow, lockId);
  return { allowed: true, removed: [...removed, ...heldRevoked], lockBecameUnowned: decision.lockBecomesUnowned };
}

/** tryRemoveMembers, throwing a refusal as its AppError (403, 409). */
export async function removeMembers(ctx: AppContext, uow: UnitOfWork, input: RemoveMembersInput): Promise<RemoveMembersResult> {
  const outcome = await tryRemoveMembers(ctx, uow, input);
  assertAllowed(outcome);
  return { removed: outcome.removed, lockBecameUnowned: outcome.lockBecameUnowned };
}

/**
 * Account deletion: the user leaves every lock as REMOVE_USER of themselves would (audited, the
 * lock's config pushed after commit, 409 last_admin when they are the last ADMIN of a lock others
 * still use, which undoes the whole deletion).
 */
export async function leaveEveryLock(ctx: AppContext, uow: UnitOfWork, userId: string): Promise<void> {
  // In id order, so two transactions touching the same locks take their row locks in one order.
  const enrolments = await uow.db.selectFrom('lock_members').select('lock_id').where('user_id', '=', userId).orderBy('lock_id').execute();
  // Every row lock before the first audit entry (the audit tree's head is taken then).
  await lockRowsForUpdate(uow, enrolments.map((row) => row.lock_id));
  for (const { lock_id: lockId } of enrolments) {
    await removeMembers(ctx, uow, { lockId, actorUserId: userId, userIds: [userId] });
  }
}
