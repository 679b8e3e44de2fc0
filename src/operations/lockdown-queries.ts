import { sql } from 'kysely';
import type { Executor } from '../db/transaction.js';

/** Of `lockIds`, the ones `userId` is a member of, with whether they administer it at `now` and its site. */
export function membershipsAmong(db: Executor, userId: string, lockIds: readonly string[], now: number) {
  return db
    .selectFrom('lock_members as admin')
    .innerJoin('locks', 'locks.id', 'admin.lock_id')
    .select(['locks.id', 'locks.site_id', sql<number>`case when ${sql.ref('admin.role')} = 'ADMIN' and (${sql.ref('admin.starts_at')} is null or ${sql.ref('admin.starts_at')} <= ${now}) and (${sql.ref('admin.ends_at')} is null or ${sql.ref('admin.ends_at')} > ${now}) then 1 else 0 end`.as('administers')])
    .where('admin.user_id', '=', userId)
    .where('admin.lock_id', 'in', [...lockIds])
    .execute();
}


export function findLockdown(db: Executor, id: string) {
  return db.selectFrom('lockdowns').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The lockdowns the locks are under now (not lifted). */
export function activeLockdownsOf(db: Executor, lockIds: readonly string[]) {
  return db.selectFrom('lockdown_locks').select(['lock_id', 'lockdown_id']).where('lock_id', 'in', [...lockIds]).where('lifted_at', 'is', null).execute();
}

export async function placeUnderLockdown(db: Executor, lockId: string, lockdownId: string): Promise<void> {
  await db
    .insertInto('lockdown_locks')
    .values({ lock_id: lockId, lockdown_id: lockdownId, lifted_at: null })
    .onConflict((oc) => oc.column('lock_id').doUpdateSet({ lockdown_id: lockdownId, lifted_at: null }))
    .execute();
}

export function liftsOf(db: Executor, lockdownId: string) {
  return db.selectFrom('lockdown_lifts').select(['user_id', 'token', 'locks']).where('lockdown_id', '=', lockdownId).orderBy('created').orderBy('user_id').execute();
}

/** Marks the lock lifted from `lockdownId`; true when this call did. */
export async function markLifted(db: Executor, lockId: string, lockdownId: string, at: number): Promise<boolean> {
  const result = await db.updateTable('lockdown_locks').set({ lifted_at: at }).where('lock_id', '=', lockId).where('lockdown_id', '=', lockdownId).where('lifted_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
