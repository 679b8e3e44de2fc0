import { assertAllowed } from '../access/member-policy.js';
import type { Caller } from '../accounts/caller.js';
import type { AuditClient } from '../audit/log-format.js';
import { recordAudit } from '../audit/record.js';
import type { AppContext } from '../context.js';
import { inTransaction, type UnitOfWork } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { pathId } from '../ids/path-ids.js';
import { canManageTiles } from '../locks/policy.js';
import { findLock, findMembership } from '../locks/queries.js';
import { addTileLinks, ensureTile, lockTileLinks, memberLocksOfTile, removeTileLinks, tileLocksAdministeredBy } from './queries.js';

/** A tile as one caller sees it: only the linked locks they are enrolled on. */
export interface TileView {
  tileId: string;
  /** The site of the first of those locks; "" when it has none (the SDK's model requires a string). */
  siteId: string;
  /** Oldest lock first; never empty. */
  lockIds: string[];
}

/**
 * GET /tile/{id}: the tile's locks the caller is enrolled on. Unknown tile, a tile with no locks
 * and a tile on someone else's locks all answer the same 404 (decisions §5: no information leak).
 */
export async function resolveTile(ctx: AppContext, caller: Caller, tileId: string): Promise<TileView> {
  const rows = await memberLocksOfTile(ctx.db.kysely, tileId, caller.userId);
  if (rows.length === 0) throw errors.notFound('tile');
  return { tileId, siteId: rows[0]!.site_id ?? '', lockIds: rows.map((r) => r.lock_id) };
}

/** TILE_ASSOCIATED / TILE_DISASSOCIATED on each lock whose link to the tile the caller made or removed. */
async function recordTileLinks(ctx: AppContext, uow: UnitOfWork, change: { caller: Caller; tileId: string; lockIds: readonly string[]; linked: boolean; client: AuditClient | undefined }): Promise<void> {
  for (const lockId of change.lockIds) {
    await recordAudit(ctx, uow, {
      lockId,
      type: change.linked ? 'TILE_ASSOCIATED' : 'TILE_DISASSOCIATED',
      actorUserId: change.caller.userId,
      details: { tileId: change.tileId },
      ...(change.client ? { client: change.client } : {}),
    });
  }
}

/** 404 unless a member; 403 unless an active ADMIN. */
async function requireTileManager(ctx: AppContext, uow: UnitOfWork, caller: Caller, lockId: string): Promise<void> {
  const member = await findMembership(uow.db, lockId, caller.userId);
  if (!member) throw errors.notFound('lock');
  assertAllowed(canManageTiles(member, ctx.now()));
}

/**
 * PUT /device/{id}/tile/{tileId} (v1): links the tile to the lock (creating it on first link);
 * linking again changes nothing. The spec's rule holds here: a tile linked to another lock is 409
 * until it is unlinked there (the multi-lock tiles of PUT /tile/{id} are v2's alone).
 */
export async function linkTile(ctx: AppContext, caller: Caller, lockId: string, tileId: string, client?: AuditClient): Promise<void> {
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    await requireTileManager(ctx, uow, caller, lockId);
    const now = ctx.now();
    await ensureTile(uow.db, tileId, now);
    const linked = await lockTileLinks(uow.db, uow.dialect, tileId);
    if (linked.includes(lockId)) return;
    if (linked.length > 0) throw errors.tileLinkedElsewhere();
    await addTileLinks(uow.db, tileId, [lockId], now);
    await recordTileLinks(ctx, uow, { caller, tileId, lockIds: [lockId], linked: true, client });
  });
}

/** DELETE /device/{id}/tile/{tileId}: 404 when the tile is not linked to this lock. */
export async function unlinkTile(ctx: AppContext, caller: Caller, lockId: string, tileId: string, client?: AuditClient): Promise<void> {
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    await requireTileManager(ctx, uow, caller, lockId);
    if ((await removeTileLinks(uow.db, tileId, [lockId])) !== 1) throw errors.notFound('tile');
    await recordTileLinks(ctx, uow, { caller, tileId, lockIds: [lockId], linked: false, client });
  });
}

export const MAX_TILE_LOCKS = 1000;

/**
 * PUT /tile/{id} (v2, `{siteId, devices}`): the tile opens exactly `lockIds` among the locks the
 * caller administers. A tile already linked to a lock they do not administer is another
 * administrator's: 409 (tile_linked_elsewhere), their links untouched (shared decisions §8: never
 * changed or shadowed by another's); an empty list still unlinks the caller's own. Every named lock must be administered by the caller (404 for
 * a non-member, 403 otherwise) and lie in `siteId` (400). An empty list unlinks all of theirs.
 */
export async function setTileLocks(ctx: AppContext, caller: Caller, tileId: string, siteId: string, lockIds: readonly string[], client?: AuditClient): Promise<void> {
  const wanted = [...new Set(lockIds.map((id) => pathId(id, 'lock')))];
  if (wanted.length > MAX_TILE_LOCKS) throw errors.validation(`devices: at most ${MAX_TILE_LOCKS} locks`);
  await inTransaction(ctx.db, ctx.logger, async (uow) => {
    for (const lockId of wanted) {
      await requireTileManager(ctx, uow, caller, lockId);
      const lock = await findLock(uow.db, lockId);
      if (lock?.site_id?.toLowerCase() !== siteId.toLowerCase()) throw errors.validation(`devices: lock ${lockId} is not in site ${siteId}`);
    }
    const now = ctx.now();
    const current = await tileLocksAdministeredBy(uow.db, tileId, caller.userId, now);
    const unlinked = current.filter((id) => !wanted.includes(id));
    await removeTileLinks(uow.db, tileId, unlinked);
    await recordTileLinks(ctx, uow, { caller, tileId, lockIds: unlinked, linked: false, client });
    if (wanted.length === 0) return;
    await ensureTile(uow.db, tileId, now);
    // A tile linked to a lock the caller does not administer is someone else's: adding theirs would
    // send that tile's users to the caller's door (issue 27 point 4). 409, as v1 answers.
    const linked = await lockTileLinks(uow.db, uow.dialect, tileId);
    if (linked.some((id) => !current.includes(id))) throw errors.tileLinkedElsewhere();
    await addTileLinks(uow.db, tileId, wanted, now);
    await recordTileLinks(ctx, uow, { caller, tileId, lockIds: wanted.filter((id) => !current.includes(id)), linked: true, client });
  });
}
