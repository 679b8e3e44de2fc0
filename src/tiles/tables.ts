/** A physical tag (NFC/QR) that points at one lock at a time; created on its first link. */
export interface TilesTable {
  id: string;
  /** Null when unlinked. */
  lock_id: string | null;
  created: number;
  updated: number;
}

export interface TileTables {
  tiles: TilesTable;
}
