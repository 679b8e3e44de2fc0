import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../db/transaction.js';
import { activeAdmin } from '../access/active-admin.js';
import type { SitesTable } from './tables.js';

export type SiteRow = Selectable<SitesTable>;

export async function insertSite(db: Executor, site: Insertable<SitesTable>): Promise<void> {
  await db.insertInto('sites').values(site).execute();
}

/** Sites where `userId` is enrolled on at least one lock. */
export function listSitesForMember(db: Executor, userId: string): Promise<SiteRow[]> {
  return db
    .selectFrom('sites')
    .selectAll('sites')
    .where('sites.id', 'in', (eb) =>
      eb.selectFrom('lock_members').innerJoin('locks', 'locks.id', 'lock_members.lock_id').select('locks.site_id').where('lock_members.user_id', '=', userId).where('locks.site_id', 'is not', null).$narrowType<{ site_id: string }>(),
    )
    .orderBy('sites.name')
    .orderBy('sites.id')
    .execute();
}

/** True when `userId` is enrolled on at least one lock of the site. */
export async function isMemberOfSite(db: Executor, siteId: string, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('lock_members')
    .innerJoin('locks', 'locks.id', 'lock_members.lock_id')
    .select('locks.id')
    .where('lock_members.user_id', '=', userId)
    .where('locks.site_id', '=', siteId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Distinct users of the site's locks that `adminId` administers now. */
export function listSiteUsersVisibleTo(db: Executor, siteId: string, adminId: string, now: number) {
  return db
    .selectFrom('users')
    .select(['users.id', 'users.email', 'users.display_name', 'users.orphan', 'users.namespace'])
    .where('users.id', 'in', (eb) =>
      eb
        .selectFrom('lock_members as admin')
        .innerJoin('locks', 'locks.id', 'admin.lock_id')
        .innerJoin('lock_members', 'lock_members.lock_id', 'admin.lock_id')
        .select('lock_members.user_id')
        .where(activeAdmin(adminId, now))
        .where('locks.site_id', '=', siteId),
    )
    .orderBy('users.email')
    .orderBy('users.id')
    .execute();
}
