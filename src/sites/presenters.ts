import type { SiteRow } from './queries.js';
import type { SiteResponse, SiteUserResponse } from './schemas.js';

export function presentSite(site: SiteRow): SiteResponse {
  return {
    id: site.id,
    name: site.name,
    logoUrl: site.logo_url,
    colour: site.colour,
    longitude: site.longitude,
    latitude: site.latitude,
    radius: site.radius,
    created: site.created,
    updated: site.updated,
  };
}

export function presentSiteUser(user: { id: string; email: string | null; display_name: string | null; orphan: 0 | 1 }): SiteUserResponse {
  return { userId: user.id, email: user.email, displayName: user.display_name, orphan: user.orphan === 1 };
}
