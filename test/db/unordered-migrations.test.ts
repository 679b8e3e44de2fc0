import assert from 'node:assert/strict';
import { Migrator } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * Migrations land in numbered ranges, not always in order: 0110 (webhooks) was merged after 0130
 * (keypad codes). A database migrated in between must take 0110 on its next start.
 */
describe('a migration merged after a higher-numbered one', () => {
  let testDb: TestDatabase;
  let db: Database;

  before(async () => {
    testDb = await createTestDatabase();
    db = openDatabase(testDb.config);
    const all = migrations(db.dialect);
    const { '0110_webhooks': _later, ...before } = all;
    assert.ok(_later && Object.keys(before).some((name) => name > '0110_webhooks'), 'a later-numbered migration exists');
    const { error } = await new Migrator({ db: db.kysely, provider: { getMigrations: async () => before } }).migrateToLatest();
    if (error) throw error;
  });
  after(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('is run on the next start', async () => {
    assert.deepEqual(await migrateToLatest(db), ['0110_webhooks']);
    assert.deepEqual(await db.kysely.selectFrom('webhook_endpoints').select('id').execute(), []);
    assert.deepEqual(await migrateToLatest(db), []);
  });
});
