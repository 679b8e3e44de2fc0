import { assertAllowed } from '../access/member-policy.js';
import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { inTransaction, type UnitOfWork } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { canManageTiles } from '../locks/policy.js';
import { findMembership } from '../locks/queries.js';
import { findTile } from './queries.js';

/**
 * GET /tile/{id}: the lock a tile points to, for a member of that lock. Unknown tile, unlinked
 * tile and someone else's lock all answer the same 404 (decisions §5: no information leak).
 */
export async function resolveTile(ctx: AppContext, caller: Caller, tileId: string): Promise<string> {
  const db = ctx.db.kysely;
  const tile = await findTile(db, tileId);
  const member = tile?.lock_id ? await findMembership(db, tile.lock_id, caller.userId) : undefined;
  if (!member) throw errors.notFound('tile');
  return member.lockId;
}

/** 404 unless a member; 403 unless an active ADMIN. */
async function requireTileManager(ctx: AppContext, uow: UnitOfWork, caller: Caller, lockId: string): Promise<void> {
  const member = await findMembership(uow.db, lockId, caller.userId);
  if (!member) throw errors.notFound('lock');
  assertAllowed(canManageTiles(member, ctx.now()));
}

const linkedElsewhere = () => errors.conflict('tile is linked to another lock');

/**
 * PUT /device/{id}/tile/{tileId}: links the tile (creating it on first link). Linking it again to
 * the same lock changes nothing; a tile linked to another lock is 409 until unlinked there.
 * The link is one conditional write, so two admins racing for a free tile cannot both win.
 */
export async function linkTile(ctx: AppContext, caller: Caller, lockId: string, tileId: string): Promise<void> {
  try {
    await inTransaction(ctx.db, ctx.logger, async (uow) => {
      await requireTileManager(ctx, uow, caller, lockId);
      const now = ctx.now();
      const tile = await findTile(uow.db, tileId);
      if (!tile) {
        await uow.db.insertInto('tiles').values({ id: tileId, lock_id: lockId, created: now, updated: now }).execute();
        return;
      }
      if (tile.lock_id === lockId) return;
      const linked = await uow.db.updateTable('tiles').set({ lock_id: lockId, updated: now }).where('id', '=', tileId).where('lock_id', 'is', null).executeTakeFirst();
      if (Number(linked.numUpdatedRows) !== 1) throw linkedElsewhere();
    });
  } catch (err) {
    // A concurrent first link of the same tile won the insert.
    if (isUniqueViolation(err)) return assertLinkedTo(ctx, tileId, lockId);
    throw err;
  }
}

async function assertLinkedTo(ctx: AppContext, tileId: string, lockId: string): Promise<void> {
  const tile = await findTile(ctx.db.kysely, tileId);
  if (tile?.lock_id !== lockId) throw linkedElsewhere();
}

/** DELETE /device/{id}/tile/{tileId}: 404 when the tile is not linked to this lock. */
export async function unlinkTile(ctx: AppContext, caller: Caller, lockId: string, tileId: string): Promise<void> {
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    await requireTileManager(ctx, uow, caller, lockId);
    const result = await uow.db.updateTable('tiles').set({ lock_id: null, updated: ctx.now() }).where('id', '=', tileId).where('lock_id', '=', lockId).executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw errors.notFound('tile');
  });
}
