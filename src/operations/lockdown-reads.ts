import { assertAllowed, canReadAdminData } from '../access/member-policy.js';
import { activeAdmin } from '../access/active-admin.js';
import type { Caller } from '../accounts/caller.js';
import { findReaderEnrolment } from '../audit/queries.js';
import type { AppContext } from '../context.js';
import type { Executor } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { pathId } from '../ids/path-ids.js';
import { isMemberOfSite } from '../sites/queries.js';
import type { LockdownView } from './lockdown-schemas.js';

/**
 * GET /lockdowns (issue 31 point 4): the lockdowns holding on locks the caller administers now,
 * each with what was declared (by whom, scope, k, responders), the lifts signed so far and, per
 * lock, whether the service lifted it and what the lock itself says it enforces (state.lockdown,
 * src/lock-link/reports.ts). A lockdown shows while it holds on one of those locks at the service,
 * or while the lock still says it in force (a lift it has not received yet). Only locks the caller
 * administers are named; `lockId` of a lock they are not a member of is 404, one they only use
 * 403; `siteId` of a site they have no lock in is 404.
 */
export async function readLockdowns(ctx: AppContext, caller: Caller, filter: { siteId?: string; lockId?: string }): Promise<LockdownView[]> {
  const db = ctx.db.kysely;
  const now = ctx.now();
  const lockId = filter.lockId === undefined ? undefined : pathId(filter.lockId, 'lock');
  const siteId = filter.siteId === undefined ? undefined : pathId(filter.siteId, 'site');
  if (lockId !== undefined) {
    const member = await findReaderEnrolment(db, lockId, caller.userId);
    if (!member) throw errors.notFound('lock');
    assertAllowed(canReadAdminData(member, now));
  }
  if (siteId !== undefined && !(await isMemberOfSite(db, siteId, caller.userId))) throw errors.notFound('site');
  const held = await heldLockdownLocks(db, caller.userId, now, { siteId, lockId });
  const ids = [...new Set(held.map((row) => row.lockdown_id))];
  if (ids.length === 0) return [];
  const declared = await db.selectFrom('lockdowns').selectAll().where('id', 'in', ids).orderBy('created', 'desc').orderBy('id').execute();
  const lifts = await db.selectFrom('lockdown_lifts').select(['lockdown_id', 'user_id', 'locks', 'created']).where('lockdown_id', 'in', ids).orderBy('created').orderBy('user_id').execute();
  const responders = new Map(declared.map((row) => [row.id, JSON.parse(row.responders) as string[]]));
  const names = await namesOf(db, [...declared.map((row) => row.declared_by), ...lifts.map((row) => row.user_id), ...[...responders.values()].flat()]);
  const person = (userId: string) => ({ userId, name: names.get(userId) ?? null });
  return declared.map((row) => {
    const signed = lifts.filter((lift) => lift.lockdown_id === row.id).map((lift) => ({ ...lift, names: JSON.parse(lift.locks) as string[] }));
    return {
      id: row.id,
      declaredBy: person(row.declared_by),
      declaredAt: row.created,
      scope: { kind: scopeKind(row.scope, row.declared_by, held.filter((h) => h.lockdown_id === row.id)), id: row.scope },
      quorum: row.quorum,
      responders: responders.get(row.id)!.map(person),
      lifts: signed.map((lift) => ({ ...person(lift.user_id), signedAt: lift.created })),
      locks: held
        .filter((h) => h.lockdown_id === row.id)
        .map((h) => ({
          lockId: h.lock_id,
          lifts: signed.filter((lift) => lift.names.includes(h.lock_id)).length,
          liftedAt: h.lifted_at,
          reported: h.reported_lockdown === null ? 'unknown' : h.reported_lockdown === row.id ? 'in_force' : 'not_in_force',
          reportedAt: h.reported_lockdown_at,
        })),
    };
  });
}

/** The sub of a declaration names the declarer (all their locks), one of its locks, or their site. */
function scopeKind(scope: string, declaredBy: string, locks: Array<{ lock_id: string }>): 'lock' | 'site' | 'all' {
  if (scope === declaredBy) return 'all';
  return locks.some((row) => row.lock_id === scope) ? 'lock' : 'site';
}

/** The locks `userId` administers at `now` whose latest lockdown still holds at the service or by the lock's own word. */
function heldLockdownLocks(db: Executor, userId: string, now: number, filter: { siteId: string | undefined; lockId: string | undefined }) {
  return db
    .selectFrom('lockdown_locks as ll')
    .innerJoin('locks', 'locks.id', 'll.lock_id')
    .innerJoin('lock_members as admin', 'admin.lock_id', 'll.lock_id')
    .select(['ll.lock_id', 'll.lockdown_id', 'll.lifted_at', 'locks.reported_lockdown', 'locks.reported_lockdown_at'])
    .where(activeAdmin(userId, now))
    .where((eb) => eb.or([eb('ll.lifted_at', 'is', null), eb('locks.reported_lockdown', '=', eb.ref('ll.lockdown_id'))]))
    .$if(filter.siteId !== undefined, (q) => q.where('locks.site_id', '=', filter.siteId!))
    .$if(filter.lockId !== undefined, (q) => q.where('ll.lock_id', '=', filter.lockId!))
    .orderBy('ll.lock_id')
    .execute();
}

/** Each user's display name, else their email. */
async function namesOf(db: Executor, userIds: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(userIds)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'display_name', 'email']).where('id', 'in', unique).execute();
  return new Map(rows.flatMap((row) => {
    const name = row.display_name ?? row.email;
    return name === null ? [] : [[row.id, name] as const];
  }));
}
