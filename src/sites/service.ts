import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { newPublicId } from '../crypto/random.js';
import type { Executor } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { DEFAULT_LOCK_COLOUR } from '../locks/lock-json.js';
import { listLocksWithTiles, type LockWithTiles } from '../locks/reads.js';
import { Colour } from '../locks/schemas.js';
import { adminOnly, assertAllowed } from '../access/member-policy.js';
import { administersAnyLock } from '../access/active-admin.js';
import { findMembership } from '../locks/queries.js';
import { insertSite, isMemberOfSite, listSitesForMember, listSiteUsersVisibleTo, type SiteRow } from './queries.js';

/** The same #RRGGBB rule as the lock endpoints' colours. */
const COLOUR = new RegExp(Colour.pattern!);

export interface SiteInput {
  name: string;
  colour?: string;
  /** Latitude, longitude and radius come together or not at all. */
  location?: { latitude: number; longitude: number; radius: number };
}

/** Null when the input is a valid site, else a message naming the bad value. */
export function siteInputError(input: SiteInput): string | null {
  if (input.name.trim() === '' || input.name.length > 255) return 'name must be 1 to 255 characters';
  if (input.colour !== undefined && !COLOUR.test(input.colour)) return 'colour must be #RRGGBB';
  const location = input.location;
  if (location === undefined) return null;
  if (!(Math.abs(location.latitude) <= 90)) return 'latitude must be from -90 to 90';
  if (!(Math.abs(location.longitude) <= 180)) return 'longitude must be from -180 to 180';
  if (!(location.radius > 0 && Number.isFinite(location.radius))) return 'radius must be a positive number of metres';
  return null;
}

/** Creates a site (`latchkey site create`, or POST /site with its `owner`); 400 for a bad value. */
export async function createSite(db: Executor, input: SiteInput, now: number, owner: string | null = null): Promise<SiteRow> {
  const error = siteInputError(input);
  if (error !== null) throw errors.validation(error);
  const site: SiteRow = {
    id: newPublicId(),
    name: input.name,
    logo_url: null,
    colour: input.colour ?? DEFAULT_LOCK_COLOUR,
    latitude: input.location?.latitude ?? null,
    longitude: input.location?.longitude ?? null,
    radius: input.location?.radius ?? null,
    owner_user_id: owner,
    created: now,
    updated: now,
  };
  await insertSite(db, site);
  return site;
}

export function listSites(ctx: AppContext, caller: Caller): Promise<SiteRow[]> {
  return listSitesForMember(ctx.db.kysely, caller.userId);
}

/** 404 unless the caller is enrolled on a lock of the site (unknown and foreign sites look alike). */
async function requireSiteMember(ctx: AppContext, caller: Caller, siteId: string): Promise<void> {
  if (!(await isMemberOfSite(ctx.db.kysely, siteId, caller.userId))) throw errors.notFound('site');
}

/** GET /site/{id}/device/: the caller's locks in the site, with their tiles. */
export async function listSiteLocks(ctx: AppContext, caller: Caller, siteId: string): Promise<LockWithTiles[]> {
  const locks = await listLocksWithTiles(ctx, caller, { siteId });
  if (locks.length === 0) throw errors.notFound('site');
  return locks;
}

/** GET /site/{id}/user/: users of the site's locks the caller administers now (maybe none). */
export async function listSiteUsers(ctx: AppContext, caller: Caller, siteId: string) {
  await requireSiteMember(ctx, caller, siteId);
  return listSiteUsersVisibleTo(ctx.db.kysely, siteId, caller.userId, ctx.now());
}

/**
 * POST /site (issue 29, beside the spec's routes): a lock administrator makes a site of their own
 * (403 for anyone else, like invitations), which they may rename and fill with the locks they
 * administer. It is listed by GET /site/mine until a lock is in it, then by GET /site as well.
 */
export async function createOwnSite(ctx: AppContext, caller: Caller, input: Pick<SiteInput, 'name' | 'colour'>): Promise<SiteRow> {
  if (!(await administersAnyLock(ctx.db.kysely, caller.userId, ctx.now()))) throw errors.forbidden('only lock administrators can make sites');
  return createSite(ctx.db.kysely, { name: input.name.trim(), ...(input.colour === undefined ? {} : { colour: input.colour }) }, ctx.now(), caller.userId);
}

/** GET /site/mine: the sites the caller made. */
export function listOwnSites(ctx: AppContext, caller: Caller): Promise<SiteRow[]> {
  return ctx.db.kysely.selectFrom('sites').selectAll().where('owner_user_id', '=', caller.userId).orderBy('name').orderBy('id').execute();
}

/** The site, when the caller made it: 404 otherwise (another's site, seen or not, is not theirs to change). */
async function requireOwnSite(ctx: AppContext, caller: Caller, siteId: string): Promise<SiteRow> {
  const site = await ctx.db.kysely.selectFrom('sites').selectAll().where('id', '=', siteId).where('owner_user_id', '=', caller.userId).executeTakeFirst();
  if (!site) throw errors.notFound('site');
  return site;
}

/** PUT /site/{id}: renames (or recolours) a site of the caller's. */
export async function updateOwnSite(ctx: AppContext, caller: Caller, siteId: string, changes: { name?: string | undefined; colour?: string | undefined }): Promise<void> {
  const site = await requireOwnSite(ctx, caller, siteId);
  const next = { name: changes.name?.trim() ?? site.name, colour: changes.colour ?? site.colour };
  const error = siteInputError(next);
  if (error !== null) throw errors.validation(error);
  await ctx.db.kysely.updateTable('sites').set({ ...next, updated: ctx.now() }).where('id', '=', siteId).execute();
}

/**
 * PUT /site/{id}/device/{lockId} puts a lock in a site of the caller's; DELETE takes it out (when
 * it is in that site). The caller must administer the lock now: 404 for a non-member, 403 for a USER.
 */
export async function placeLock(ctx: AppContext, caller: Caller, siteId: string, lockId: string, inSite: boolean): Promise<void> {
  await requireOwnSite(ctx, caller, siteId);
  const membership = await findMembership(ctx.db.kysely, lockId, caller.userId);
  if (!membership) throw errors.notFound('lock');
  assertAllowed(adminOnly(membership, ctx.now()));
  const update = ctx.db.kysely.updateTable('locks').set({ site_id: inSite ? siteId : null, updated: ctx.now() }).where('id', '=', lockId);
  await (inSite ? update : update.where('site_id', '=', siteId)).execute();
}
