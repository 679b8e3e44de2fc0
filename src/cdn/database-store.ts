import type { Database } from '../db/database.js';
import type { ObjectStore } from './local-store.js';

/**
 * Objects as rows of `cdn_objects`: what the embedded storage uses on PostgreSQL, where several
 * instances share the database but not a disk (a logo uploaded through one is served by all).
 * Logos are small (the upload limit), so a row each is no burden.
 */
export class DatabaseObjectStore implements ObjectStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  async put(key: string, bytes: Buffer): Promise<void> {
    const updated = this.now();
    await this.db.kysely
      .insertInto('cdn_objects')
      .values({ key, bytes, updated })
      .onConflict((c) => c.column('key').doUpdateSet({ bytes, updated }))
      .execute();
  }

  async get(key: string): Promise<Buffer | null> {
    const row = await this.db.kysely.selectFrom('cdn_objects').select('bytes').where('key', '=', key).executeTakeFirst();
    return row ? Buffer.from(row.bytes) : null;
  }

  async removeDirectory(prefix: string): Promise<void> {
    // Keys are `applications/<id>/…` (checked before they get here): no LIKE wildcard in them.
    await this.db.kysely.deleteFrom('cdn_objects').where('key', 'like', `${prefix}/%`).execute();
  }
}
