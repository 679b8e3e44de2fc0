import type { Executor } from '../db/transaction.js';

export function findTile(db: Executor, tileId: string) {
  return db.selectFrom('tiles').selectAll().where('id', '=', tileId).executeTakeFirst();
}

export interface TileFilter {
  favouritesOnly?: boolean;
  siteId?: string;
}

/**
 * Tile ids per lock for every lock `userId` is enrolled on (optionally only pinned ones, or
 * those of a site): one query driven by the member index, whatever the number of locks.
 */
export async function tileIdsByLockForMember(db: Executor, userId: string, filter: TileFilter = {}): Promise<Map<string, string[]>> {
  let query = db
    .selectFrom('lock_members')
    .innerJoin('tiles', 'tiles.lock_id', 'lock_members.lock_id')
    .select(['tiles.id', 'lock_members.lock_id'])
    .where('lock_members.user_id', '=', userId);
  if (filter.favouritesOnly) query = query.where('lock_members.favourite', '=', 1);
  if (filter.siteId !== undefined) {
    query = query.innerJoin('locks', 'locks.id', 'lock_members.lock_id').where('locks.site_id', '=', filter.siteId);
  }
  const rows = await query.orderBy('tiles.id').execute();
  const byLock = new Map<string, string[]>();
  for (const row of rows) {
    const list = byLock.get(row.lock_id) ?? [];
    list.push(row.id);
    byLock.set(row.lock_id, list);
  }
  return byLock;
}
