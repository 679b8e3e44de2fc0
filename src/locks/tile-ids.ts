import type { Executor } from '../db/transaction.js';

/**
 * The ids of the tiles that open each of a member's locks, which every lock they are shown carries
 * (`settings.tiles`). Linking tiles is the tiles feature's (src/tiles/); what a lock shows is read here.
 */

export interface TileFilter {
  favouritesOnly?: boolean;
  siteId?: string;
  /** Only this lock (GET /device/{id}). */
  lockId?: string;
}

/**
 * Tile ids per lock for every lock `userId` is enrolled on (optionally only pinned ones, those
 * of a site, or one lock): one query driven by the member index, whatever the number of locks.
 */
export async function tileIdsByLockForMember(db: Executor, userId: string, filter: TileFilter = {}): Promise<Map<string, string[]>> {
  let query = db
    .selectFrom('lock_members')
    .innerJoin('tile_locks', 'tile_locks.lock_id', 'lock_members.lock_id')
    .select(['tile_locks.tile_id', 'lock_members.lock_id'])
    .where('lock_members.user_id', '=', userId);
  if (filter.favouritesOnly) query = query.where('lock_members.favourite', '=', 1);
  if (filter.lockId !== undefined) query = query.where('lock_members.lock_id', '=', filter.lockId);
  if (filter.siteId !== undefined) {
    query = query.innerJoin('locks', 'locks.id', 'lock_members.lock_id').where('locks.site_id', '=', filter.siteId);
  }
  const rows = await query.orderBy('tile_locks.tile_id').execute();
  const byLock = new Map<string, string[]>();
  for (const row of rows) {
    const list = byLock.get(row.lock_id);
    if (list) list.push(row.tile_id);
    else byLock.set(row.lock_id, [row.tile_id]);
  }
  return byLock;
}
