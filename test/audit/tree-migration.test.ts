import assert from 'node:assert/strict';
import { Migrator } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { auditEntryHash, GENESIS_HASH } from '../../src/audit/chain.js';
import { Frontier } from '../../src/audit/merkle.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { migrateToLatest } from '../../src/db/migrator.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import * as rfc from './rfc9162.js';

describe('migration 0008 on a database that already has audit entries', () => {
  let testDb: TestDatabase;
  let db: Database;
  const hashes: string[] = [];

  before(async () => {
    testDb = await createTestDatabase();
    db = openDatabase(testDb.config);
    const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations(db.dialect) } });
    const { error } = await migrator.migrateTo('0007_held_invite_shares');
    if (error) throw error;
    const previous = new Map<string, string>();
    for (let i = 0; i < 37; i++) {
      const lockId = `0190a0a0-0000-7000-8000-00000000000${i % 3}`;
      const fields = { version: 1 as const, lockId, timestamp: 1_700_000_000 + i, type: 'DOOR_UNLOCK', actorUserId: null, subjectUserId: null, rejected: false, message: 'lock unlocked', details: { i } };
      const prev = previous.get(lockId) ?? GENESIS_HASH;
      const hash = auditEntryHash(prev, fields);
      previous.set(lockId, hash);
      hashes.push(hash);
      await db.kysely.insertInto('audit_entries').values({ id: `0190a0a0-0000-7000-8000-0000000001${String(i).padStart(2, '0')}`, lock_id: lockId, timestamp: fields.timestamp, type: fields.type, actor_user_id: null, subject_user_id: null, rejected: 0, message: fields.message, details: JSON.stringify(fields.details), prev_hash: prev, hash }).execute();
    }
    await migrateToLatest(db);
  });
  after(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('makes the existing entries the first leaves, in seq order, with the RFC 9162 root', async () => {
    const head = await db.kysely.selectFrom('audit_tree_head').selectAll().executeTakeFirstOrThrow();
    assert.equal(Number(head.size), 37);
    const leaves = hashes.map((h) => Buffer.from(h, 'hex'));
    assert.deepEqual(Frontier.decode(37, head.frontier).root(), rfc.mth(leaves));
    const { nodes } = rfc.treeRows(leaves);
    const stored = await db.kysely.selectFrom('audit_tree_nodes').select(['position', 'hash']).orderBy('position').execute();
    assert.deepEqual(stored.map((n) => [Number(n.position), Buffer.from(n.hash).toString('hex')]), nodes.map((n) => [n.position, n.hash.toString('hex')]).sort((a, b) => (a[0] as number) - (b[0] as number)));
    const leafSeqs = await db.kysely.selectFrom('audit_tree_nodes as n').innerJoin('audit_entries as e', 'e.seq', 'n.entry_seq').select(['n.position', 'e.hash']).orderBy('n.position').execute();
    assert.deepEqual(leafSeqs.map((r) => r.hash), hashes);
  });
});
