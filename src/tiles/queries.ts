import type { DialectName } from '../db/database.js';
import type { Executor } from '../db/transaction.js';
import { activeAdmin } from '../access/active-admin.js';

export function findTile(db: Executor, tileId: string) {
  return db.selectFrom('tiles').selectAll().where('id', '=', tileId).executeTakeFirst();
}

/** The tile's locks that `userId` is enrolled on, with their site, oldest lock first (by `created`: lock ids are random v4). */
export function memberLocksOfTile(db: Executor, tileId: string, userId: string) {
  return db
    .selectFrom('tile_locks')
    .innerJoin('lock_members', (join) => join.onRef('lock_members.lock_id', '=', 'tile_locks.lock_id').on('lock_members.user_id', '=', userId))
    .innerJoin('locks', 'locks.id', 'tile_locks.lock_id')
    .select(['tile_locks.lock_id', 'locks.site_id'])
    .where('tile_locks.tile_id', '=', tileId)
    .orderBy('locks.created')
    .orderBy('tile_locks.lock_id')
    .execute();
}

/** Creates the tile row on first use (a concurrent creator is no error). */
export async function ensureTile(db: Executor, tileId: string, now: number): Promise<void> {
  await db.insertInto('tiles').values({ id: tileId, lock_id: null, created: now, updated: now }).onConflict((oc) => oc.column('id').doNothing()).execute();
}

/**
 * The locks the tile is linked to, its row locked until the transaction ends (PostgreSQL; SQLite
 * runs one write transaction at a time), so two links racing for one tile are judged in turn.
 */
export async function lockTileLinks(db: Executor, dialect: DialectName, tileId: string): Promise<string[]> {
  const tile = db.selectFrom('tiles').select('id').where('id', '=', tileId);
  await (dialect === 'postgres' ? tile.forUpdate() : tile).execute();
  const rows = await db.selectFrom('tile_locks').select('lock_id').where('tile_id', '=', tileId).execute();
  return rows.map((r) => r.lock_id);
}

export async function addTileLinks(db: Executor, tileId: string, lockIds: readonly string[], now: number): Promise<void> {
  if (lockIds.length === 0) return;
  await db
    .insertInto('tile_locks')
    .values(lockIds.map((lockId) => ({ tile_id: tileId, lock_id: lockId, created: now })))
    .onConflict((oc) => oc.columns(['tile_id', 'lock_id']).doNothing())
    .execute();
}

/** Removes the tile's links to `lockIds`; the number removed. */
export async function removeTileLinks(db: Executor, tileId: string, lockIds: readonly string[]): Promise<number> {
  if (lockIds.length === 0) return 0;
  const result = await db.deleteFrom('tile_locks').where('tile_id', '=', tileId).where('lock_id', 'in', [...lockIds]).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The tile's linked locks that `adminId` administers at `now` (the part of the tile PUT /tile/{id} replaces). */
export async function tileLocksAdministeredBy(db: Executor, tileId: string, adminId: string, now: number): Promise<string[]> {
  const rows = await db
    .selectFrom('tile_locks')
    .innerJoin('lock_members as admin', 'admin.lock_id', 'tile_locks.lock_id')
    .select('tile_locks.lock_id')
    .where('tile_locks.tile_id', '=', tileId)
    .where(activeAdmin(adminId, now))
    .execute();
  return rows.map((r) => r.lock_id);
}
