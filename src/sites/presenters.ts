import { DIRECT_NAMESPACE } from '../accounts/queries.js';
import type { SiteRow } from './queries.js';
import type { SiteResponse, SiteUserResponse } from './schemas.js';

/**
 * What a site without a location shows: the values of the service's own documentation, since the
 * SDK's model requires numbers (docs/decisions.md, "SDK shapes").
 */
export const SITE_WITHOUT_LOCATION = { latitude: 0, longitude: 0, radius: 10 } as const;

/** A site; its radius in whole metres (the SDK reads an integer). */
export function presentSite(site: SiteRow): SiteResponse {
  return {
    id: site.id,
    name: site.name,
    logoUrl: site.logo_url,
    colour: site.colour,
    longitude: site.longitude ?? SITE_WITHOUT_LOCATION.longitude,
    latitude: site.latitude ?? SITE_WITHOUT_LOCATION.latitude,
    radius: site.radius === null ? SITE_WITHOUT_LOCATION.radius : Math.max(1, Math.round(site.radius)),
    created: site.created,
    updated: site.updated,
  };
}

export function presentSiteUser(user: { id: string; email: string | null; display_name: string | null; orphan: 0 | 1; namespace: string }): SiteUserResponse {
  return { userId: user.id, email: user.email, displayName: user.display_name, orphan: user.orphan === 1, foreign: user.namespace !== DIRECT_NAMESPACE };
}
