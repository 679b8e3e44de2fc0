import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { newPublicId } from '../crypto/random.js';
import type { Executor } from '../db/transaction.js';
import { errors } from '../errors/catalogue.js';
import { DEFAULT_LOCK_COLOUR } from '../locks/presenters.js';
import { listLocksWithTiles, type LockWithTiles } from '../locks/reads.js';
import { Colour } from '../locks/schemas.js';
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

/** Creates a site (`latchkey site create`); 400 for a bad value. */
export async function createSite(db: Executor, input: SiteInput, now: number): Promise<SiteRow> {
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
