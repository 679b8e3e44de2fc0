/** A physical tag (NFC/QR) that opens the locks linked to it; created on its first link. */
export interface TilesTable {
  id: string;
  /** Superseded by tile_locks (migration 0010); always null. */
  lock_id: string | null;
  created: number;
  updated: number;
}

/** Which locks a tile opens (migration 0010). */
export interface TileLocksTable {
  tile_id: string;
  lock_id: string;
  created: number;
}

export interface TileTables {
  tiles: TilesTable;
  tile_locks: TileLocksTable;
}
