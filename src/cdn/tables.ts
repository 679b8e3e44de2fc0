/** Logos kept in the database (embedded storage on PostgreSQL: every instance serves every logo). */
export interface CdnObjectsTable {
  key: string;
  bytes: Buffer;
  updated: number;
}

export interface CdnTables {
  cdn_objects: CdnObjectsTable;
}
