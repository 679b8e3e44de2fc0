import type { MemberRole, TimeRequirement } from '../access/types.js';
import type { AuditClient } from '../audit/log-format.js';
import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import type { Executor, UnitOfWork } from '../db/transaction.js';
import { configChanged } from '../locks/config-changes.js';
import { lockRowsForUpdate } from '../locks/queries.js';

/**
 * The shares of a pending invite, held while nobody has proved they own its email (decisions §2
 * and docs/decisions.md, Invitations). Registration v1 with an invite's email takes the invite
 * over, but anyone can type an address: until the registrant follows the link sent to it, the
 * invite's lock_members rows wait in held_invite_shares, where no query for access finds them.
 * Verifying the email puts them back. Revoking the invitee meanwhile drops them.
 */

/**
 * Audits a move of the user's access on each lock as the removal or share it amounts to (issue 15:
 * everything that moves access is audited), and has each lock's config follow.
 */
async function accessMoved(ctx: AppContext, uow: UnitOfWork, lockIds: readonly string[], move: { type: 'LOCK_REVOKED' | 'LOCK_SHARED'; actorUserId: string; subjectUserId: string; message: string }): Promise<void> {
  for (const lockId of lockIds) {
    await recordAudit(ctx, uow, { lockId, ...move });
    await configChanged(ctx, uow, lockId);
  }
}

/** Moves the user's shares aside (LOCK_REVOKED on each lock, by the registrant); each lock's config loses them. */
export async function holdInviteShares(ctx: AppContext, uow: UnitOfWork, userId: string): Promise<void> {
  const shared = await uow.db.selectFrom('lock_members').select('lock_id').where('user_id', '=', userId).execute();
  await lockRowsForUpdate(uow, shared.map((row) => row.lock_id));
  const rows = await uow.db.deleteFrom('lock_members').where('user_id', '=', userId).returningAll().execute();
  if (rows.length === 0) return;
  await uow.db.insertInto('held_invite_shares').values(rows).execute();
  const message = 'invite taken over: access held until the email is verified';
  await accessMoved(ctx, uow, rows.map((row) => row.lock_id), { type: 'LOCK_REVOKED', actorUserId: userId, subjectUserId: userId, message });
}

/**
 * A pending invite discarded by a registration with `force=true`: its shares end (LOCK_REVOKED
 * on each lock, by the registrant) before the invite itself is deleted.
 */
export async function revokeDiscardedInvite(ctx: AppContext, uow: UnitOfWork, inviteId: string, registrantId: string): Promise<void> {
  const shared = await uow.db.selectFrom('lock_members').select('lock_id').where('user_id', '=', inviteId).execute();
  const lockIds = shared.map((row) => row.lock_id);
  await lockRowsForUpdate(uow, lockIds);
  const removed = await uow.db.deleteFrom('lock_members').where('user_id', '=', inviteId).returning('lock_id').execute();
  await uow.db.deleteFrom('held_invite_shares').where('user_id', '=', inviteId).execute();
  const message = 'pending invite discarded by a registration of its email';
  await accessMoved(ctx, uow, removed.map((row) => row.lock_id), { type: 'LOCK_REVOKED', actorUserId: registrantId, subjectUserId: inviteId, message });
}

/** Puts the user's held shares back (LOCK_SHARED on each lock, by the user), except on locks they were enrolled in again meanwhile. */
export async function releaseInviteShares(ctx: AppContext, uow: UnitOfWork, userId: string): Promise<void> {
  const waiting = await uow.db.selectFrom('held_invite_shares').select('lock_id').where('user_id', '=', userId).execute();
  if (waiting.length === 0) return;
  await lockRowsForUpdate(uow, waiting.map((row) => row.lock_id));
  const held = await uow.db.deleteFrom('held_invite_shares').where('user_id', '=', userId).returningAll().execute();
  const enrolled = await uow.db.selectFrom('lock_members').select('lock_id').where('user_id', '=', userId).execute();
  const already = new Set(enrolled.map((row) => row.lock_id));
  const restored = held.filter((row) => !already.has(row.lock_id));
  if (restored.length === 0) return;
  await uow.db.insertInto('lock_members').values(restored).execute();
  const message = 'invite accepted: email verified';
  await accessMoved(ctx, uow, restored.map((row) => row.lock_id), { type: 'LOCK_SHARED', actorUserId: userId, subjectUserId: userId, message });
}

/** Drops the held shares of these users on the lock (all of its held shares without users); the users whose share was dropped. */
export async function dropHeldShares(db: Executor, lockId: string, userIds?: readonly string[]): Promise<string[]> {
  let query = db.deleteFrom('held_invite_shares').where('lock_id', '=', lockId);
  if (userIds !== undefined) {
    if (userIds.length === 0) return [];
    query = query.where('user_id', 'in', [...userIds]);
  }
  const rows = await query.returning('user_id').execute();
  return rows.map((row) => row.user_id);
}

export interface HeldShare {
  lockId: string;
  actorUserId: string;
  userId: string;
  role: MemberRole;
  start: number | null;
  end: number | null;
  /** The share's own weekly hours; undefined keeps a held share's. */
  schedule?: TimeRequirement[] | null;
  client?: AuditClient;
}

/**
 * ADD_USER to an account whose email is not verified: the share waits in held_invite_shares
 * (a re-share replaces its role and window) until verification releases it. The lock's config
 * does not change: the lock must not know the user yet.
 */
export async function holdShare(ctx: AppContext, uow: UnitOfWork, share: HeldShare): Promise<void> {
  const { lockId, userId, role, start, end } = share;
  const now = ctx.now();
  const schedule = share.schedule === undefined ? {} : { schedule: storedSchedule(share.schedule) };
  const held = await uow.db.selectFrom('held_invite_shares').select('user_id').where('lock_id', '=', lockId).where('user_id', '=', userId).executeTakeFirst();
  if (held) {
    await uow.db.updateTable('held_invite_shares').set({ role, starts_at: start, ends_at: end, ...schedule, updated: now }).where('lock_id', '=', lockId).where('user_id', '=', userId).execute();
  } else {
    await uow.db.insertInto('held_invite_shares').values({ lock_id: lockId, user_id: userId, role, starts_at: start, ends_at: end, alias: null, favourite: 0, colour: null, ...schedule, created: now, updated: now }).execute();
  }
  const message = 'held until the email is verified';
  await recordAudit(ctx, uow, { lockId, type: 'LOCK_SHARED', actorUserId: share.actorUserId, subjectUserId: userId, message, details: { role, start, end, ...scheduleDetail(share.schedule), held: true }, ...(share.client ? { client: share.client } : {}) });
}

/** How many of the user's shares wait for their email to be verified (GET /share/waiting: a count, never which doors). */
export async function countHeldShares(db: Executor, userId: string): Promise<number> {
  const row = await db.selectFrom('held_invite_shares').select((eb) => eb.fn.countAll<number | string>().as('count')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Whether any share waits for this user's email to be verified. */
export async function hasHeldShares(db: Executor, userId: string): Promise<boolean> {
  return (await db.selectFrom('held_invite_shares').select('lock_id').where('user_id', '=', userId).limit(1).executeTakeFirst()) !== undefined;
}

/** A schedule as stored (JSON text, null for none). */
export const storedSchedule = (schedule: TimeRequirement[] | null): string | null => (schedule === null ? null : JSON.stringify(schedule));

/** The schedule an audit entry records, when the share set one (absent: left as it was). */
export const scheduleDetail = (schedule: TimeRequirement[] | null | undefined): { schedule?: TimeRequirement[] | null } => (schedule === undefined ? {} : { schedule });
