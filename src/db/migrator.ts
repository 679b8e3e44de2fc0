import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Database, DialectName } from './database.js';
import { migrations } from './migrations/index.js';

class RegistryProvider implements MigrationProvider {
  constructor(private readonly dialect: DialectName) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations(this.dialect);
  }
}

/** Brings the schema up to date; throws with the failing migration's name. */
export async function migrateToLatest(database: Database): Promise<string[]> {
  // Parallel work lands numbered ranges out of order (0110 merged after 0130): a database migrated
  // in between still gets the lower-numbered newcomer instead of refusing to start.
  const migrator = new Migrator({ db: database.kysely, provider: new RegistryProvider(database.dialect), allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
