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
  created: number;
  updated: number;
}

export interface SiteTables {
  sites: SitesTable;
}
