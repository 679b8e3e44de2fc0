import { isMemberActive } from '../access/member-policy.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { findMembership } from '../locks/queries.js';
import { decodeCursor, type Cursor } from './cursor.js';
import type { StreamLockAccess } from './stream.js';

/** The most locks one stream may watch. */
export const MAX_STREAM_LOCKS = 100;

/** The stream's locks, sorted and distinct, with when the caller's access to each ends (null: never). */
export interface StreamAccess {
  userId: string;
  lockIds: string[];
  endsAt: Map<string, number | null>;
  /** When the caller joined each lock they are not an ADMIN of (Unix seconds): the start of the history they may replay. */
  joinedAsUser: Map<string, number>;
  /** The locks the caller is an ADMIN of. */
  adminOf: Set<string>;
}

/**
 * 404 unless the caller is a member of every lock; 403 when one of their windows has not started
 * or has ended (live events are for members who may use the door now: decisions.md, Live events).
 */
export async function streamLocks(ctx: AppContext, userId: string, requested: readonly string[]): Promise<StreamAccess> {
  const lockIds = [...new Set(requested.map((id) => id.toLowerCase()))].sort();
  if (lockIds.length === 0) throw errors.badRequest('at least one device is required');
  if (lockIds.length > MAX_STREAM_LOCKS) throw errors.badRequest(`at most ${MAX_STREAM_LOCKS} devices per stream`);
  const rows = await ctx.db.kysely
    .selectFrom('lock_members')
    .select(['lock_id', 'role', 'starts_at', 'ends_at', 'created'])
    .where('user_id', '=', userId)
    .where('lock_id', 'in', lockIds)
    .execute();
  if (rows.length !== lockIds.length) throw errors.notFound('lock');
  const now = ctx.now();
  if (rows.some((row) => !isMemberActive({ start: row.starts_at, end: row.ends_at }, now))) throw errors.forbidden('access to a listed lock is outside its window');
  return {
    userId,
    lockIds,
    endsAt: new Map(rows.map((row) => [row.lock_id, row.ends_at])),
    joinedAsUser: new Map(rows.filter((row) => row.role !== 'ADMIN').map((row) => [row.lock_id, row.created])),
    adminOf: new Set(rows.filter((row) => row.role === 'ADMIN').map((row) => row.lock_id)),
  };
}

/**
 * Where the stream starts: after the Last-Event-ID position when given (400 when it is not one
 * of this stream's), else after each lock's newest entry (only what happens from now on). A
 * USER's position is never earlier than their joining the lock: the trail before it is for
 * ADMINs (decisions §5), and a reconnecting USER never asks for it anyway.
 */
export async function startingCursor(ctx: AppContext, access: StreamAccess, lastEventId: string | undefined): Promise<Cursor> {
  const { lockIds, joinedAsUser } = access;
  if (lastEventId !== undefined && lastEventId.trim() !== '') {
    const cursor = decodeCursor(lockIds, lastEventId);
    if (!cursor) throw errors.badRequest('Last-Event-ID is not a position of a stream of these devices');
    for (const [lockId, joined] of joinedAsUser) cursor.set(lockId, await notBeforeJoining(ctx, lockId, access.userId, cursor.get(lockId)!, joined));
    return cursor;
  }
  const rows = await ctx.db.kysely
    .selectFrom('audit_entries')
    .select(['lock_id', (eb) => eb.fn.max('seq').as('last')])
    .where('lock_id', 'in', [...lockIds])
    .groupBy('lock_id')
    .execute();
  const newest = new Map(rows.map((row) => [row.lock_id, Number(row.last)]));
  return new Map(lockIds.map((id) => [id, newest.get(id) ?? 0]));
}

/**
 * `position`, or just before the newest entry of the lock that names the user as its subject
 * (the share that enrolled them, or a later change of their access) when `position` is earlier:
 * one read of the user's own entries (index on subject, seq), however long the lock's trail.
 * Should there be none (an owner who stepped down), a position from before `joined` (Unix
 * seconds) is moved to the lock's newest entry.
 */
async function notBeforeJoining(ctx: AppContext, lockId: string, userId: string, position: number, joined: number): Promise<number> {
  const db = ctx.db.kysely;
  const named = await db.selectFrom('audit_entries').select('seq').where('subject_user_id', '=', userId).where('lock_id', '=', lockId).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  if (named !== undefined) return Math.max(position, named.seq - 1);
  const next = await db.selectFrom('audit_entries').select(['seq', 'timestamp']).where('lock_id', '=', lockId).where('seq', '>', position).orderBy('seq').limit(1).executeTakeFirst();
  if (next === undefined || next.timestamp >= joined) return position;
  const newest = await db.selectFrom('audit_entries').select((eb) => eb.fn.max('seq').as('last')).where('lock_id', '=', lockId).executeTakeFirst();
  return Number(newest?.last ?? position);
}

/** When the user's access to the lock ends (null: never) and whether they administer it, or undefined when they have none now. */
export async function currentAccess(ctx: AppContext, lockId: string, userId: string): Promise<StreamLockAccess | undefined> {
  const member = await findMembership(ctx.db.kysely, lockId, userId);
  return member && isMemberActive(member, ctx.now()) ? { endsAt: member.end ?? null, admin: member.role === 'ADMIN' } : undefined;
}
