import { assertAllowed, canReadAdminData } from '../access/member-policy.js';
import type { Caller } from '../accounts/caller.js';
import { findUserById } from '../accounts/queries.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { userLogScope } from './policy.js';
import { administeredAmong, administersLockOf, findReaderEnrolment, lockLogPage, userLogPage, type LockLogRow, type PageQuery, type UserLogRow } from './queries.js';
import { DEFAULT_PAGE, MAX_PAGE, MAX_RANGE, type LogQuery } from './schemas.js';
import { AUDIT_TYPES, V1_TYPES } from './types.js';

/**
 * The page a query asks for. Without `limit`, a request naming `start` or `end` (the official SDK
 * always sends both) asks for the whole range: one entry more than MAX_RANGE is read, so that a
 * larger range is refused (see assertWholeRange) rather than silently cut.
 */
export function toPage(query: LogQuery): PageQuery {
  if (query.limit === undefined && (query.start !== undefined || query.end !== undefined)) {
    return { start: query.start, end: query.end, limit: MAX_RANGE + 1, wholeRange: true };
  }
  return { start: query.start, end: query.end, limit: Math.min(query.limit ?? DEFAULT_PAGE, MAX_PAGE) };
}

/** 400 when a whole-range request found more entries than MAX_RANGE. */
function assertWholeRange<R>(page: PageQuery, rows: R[]): R[] {
  if (page.wholeRange && rows.length > MAX_RANGE) {
    throw errors.validation(`the range holds more than ${MAX_RANGE} entries: narrow start and end, or page with limit`);
  }
  return rows;
}

/**
 * A lock's trail for one of its active admins (404 for a non-member, as for a lock that does not
 * exist; 403 otherwise); v1 shows only the types v1 clients know, v2 the spec's (the SDK decodes no other).
 */
export async function readLockLog(ctx: AppContext, caller: Caller, lockId: string, page: PageQuery, version: 1 | 2): Promise<LockLogRow[]> {
  const db = ctx.db.kysely;
  const member = await findReaderEnrolment(db, lockId, caller.userId);
  if (!member) throw errors.notFound('lock');
  assertAllowed(canReadAdminData(member, ctx.now()));
  return assertWholeRange(page, await lockLogPage(db, lockId, page, version === 1 ? V1_TYPES : AUDIT_TYPES));
}

/** A user's trail: all of it for the user, the part on their own locks for an admin. */
export async function readUserLog(ctx: AppContext, caller: Caller, userId: string, page: PageQuery): Promise<UserLogRow[]> {
  const db = ctx.db.kysely;
  const admin = { adminId: caller.userId, now: ctx.now() };
  const self = caller.userId === userId;
  const administersOne = !self && (await findUserById(db, userId)) !== undefined && (await administersLockOf(db, admin, userId));
  const scope = userLogScope(caller.userId, userId, administersOne);
  if (scope === 'not_found') throw errors.notFound('user');
  const rows = assertWholeRange(page, await userLogPage(db, userId, page, scope === 'administered' ? admin : undefined));
  return scope === 'all' ? withoutOthersNames(rows, userId, await administeredAmong(db, admin, rows.map((row) => row.lock_id))) : rows;
}

/**
 * A user's own trail as they may see it (issue 15 §6): on a lock they do not administer now, the
 * other member an entry names keeps their id but not their email or display name.
 */
function withoutOthersNames(rows: UserLogRow[], viewerId: string, administered: ReadonlySet<string>): UserLogRow[] {
  const other = (userId: string | null) => userId !== null && userId !== viewerId;
  return rows.map((row) => {
    if (administered.has(row.lock_id)) return row;
    const masked = { ...row };
    if (other(row.actor_user_id)) Object.assign(masked, { actor_email: null, actor_display_name: null });
    if (other(row.subject_user_id)) Object.assign(masked, { subject_email: null, subject_display_name: null });
    return masked;
  });
}
