import { isMemberActive } from '../access/member-policy.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { findMembership } from '../locks/queries.js';
import { decodeCursor, type Cursor } from './cursor.js';

/** The most locks one stream may watch. */
export const MAX_STREAM_LOCKS = 100;

/** The stream's locks, sorted and distinct, with when the caller's access to each ends (null: never). */
export interface StreamAccess {
  lockIds: string[];
  endsAt: Map<string, number | null>;
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
    .select(['lock_id', 'starts_at', 'ends_at'])
    .where('user_id', '=', userId)
    .where('lock_id', 'in', lockIds)
    .execute();
  if (rows.length !== lockIds.length) throw errors.notFound('lock');
  const now = ctx.now();
  if (rows.some((row) => !isMemberActive({ start: row.starts_at, end: row.ends_at }, now))) throw errors.forbidden('access to a listed lock is outside its window');
  return { lockIds, endsAt: new Map(rows.map((row) => [row.lock_id, row.ends_at])) };
}

/**
 * Where the stream starts: after the Last-Event-ID position when given (400 when it is not one
 * of this stream's), else after each lock's newest entry (only what happens from now on).
 */
export async function startingCursor(ctx: AppContext, lockIds: readonly string[], lastEventId: string | undefined): Promise<Cursor> {
  if (lastEventId !== undefined && lastEventId.trim() !== '') {
    const cursor = decodeCursor(lockIds, lastEventId);
    if (!cursor) throw errors.badRequest('Last-Event-ID is not a position of a stream of these devices');
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

/** When the user's access to the lock ends (null: never), or undefined when they have none now. */
export async function currentAccess(ctx: AppContext, lockId: string, userId: string): Promise<{ endsAt: number | null } | undefined> {
  const member = await findMembership(ctx.db.kysely, lockId, userId);
  return member && isMemberActive(member, ctx.now()) ? { endsAt: member.end ?? null } : undefined;
}
