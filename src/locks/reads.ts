import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import { listAdministeredLocks } from './admin-queries.js';
import { listLocksJson } from './list-json.js';
import { tileIdsByLockForMember, type TileFilter } from './tile-ids.js';
import { listLockRowsForMember, loadLockRowForMember, type MemberLockRow } from './queries.js';

/** Reads of the lock endpoints; every one is scoped to the caller's own enrolments. */

/** A lock as one member's row, to present (src/locks/presenters.ts), with the tiles that open it. */
export interface LockWithTiles {
  lock: MemberLockRow;
  tiles: string[];
}

/** GET /device: every lock of the caller with its tiles, as the JSON text of the response (one query; src/locks/list-json.ts). */
export function listLocksAsJson(ctx: AppContext, caller: Caller): Promise<string> {
  return listLocksJson(ctx.db.kysely, ctx.db.dialect, caller.userId);
}

/** 404 when the caller is not enrolled on the lock, exactly as when it does not exist. */
export async function getLock(ctx: AppContext, caller: Caller, lockId: string): Promise<LockWithTiles> {
  const db = ctx.db.kysely;
  const [lock, tiles] = await Promise.all([loadLockRowForMember(db, ctx.db.dialect, lockId, caller.userId), tileIdsByLockForMember(db, caller.userId, { lockId })]);
  if (!lock) throw errors.notFound('lock');
  return { lock, tiles: tiles.get(lock.id) ?? [] };
}

/** The caller's locks with their tiles: pinned ones (GET /device/favourite) or a site's. */
export async function listLocksWithTiles(ctx: AppContext, caller: Caller, filter: TileFilter): Promise<LockWithTiles[]> {
  const db = ctx.db.kysely;
  const [locks, tiles] = await Promise.all([listLockRowsForMember(db, caller.userId, filter), tileIdsByLockForMember(db, caller.userId, filter)]);
  return locks.map((lock) => ({ lock, tiles: tiles.get(lock.id) ?? [] }));
}

/** Locks the caller administers now, with the name the caller sees (GET /device/shareable). */
export async function listShareableLocks(ctx: AppContext, caller: Caller): Promise<Array<{ id: string; name: string }>> {
  const rows = await listAdministeredLocks(ctx.db.kysely, caller.userId, ctx.now());
  return rows.map((row) => ({ id: row.id, name: row.alias ?? row.default_name ?? row.name }));
}
