/** A group of locks (spec "Site"); created by operators with `latchkey site create`. */
export interface SitesTable {
  id: string;
  name: string;
  logo_url: string | null;
  /** #RRGGBB */
  colour: string;
  /** Null when the operator gave no location (the three are set together). */
  latitude: number | null;
  longitude: number | null;
  /** Metres. */
  radius: number | null;
  /** The user who made the site through the API (migration 0041); null for an operator's site. */
  owner_user_id: string | null;
  created: number;
  updated: number;
}

export interface SiteTables {
  sites: SitesTable;
}
