import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { auditEntryHash, GENESIS_HASH } from '../../src/audit/chain.js';
import { checkpointVerifier } from '../../src/audit/cli.js';
import { recordAuditNow } from '../../src/audit/record.js';
import { appendLeaf, lockTreeHead } from '../../src/audit/tree.js';
import { verifyAuditLog } from '../../src/audit/verify-log.js';
import { verifyAuditTrail } from '../../src/audit/verify.js';
import { loadConfig } from '../../src/config/config.js';
import { newPublicId } from '../../src/crypto/random.js';
import { openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { startService, type RunningService } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { Api } from '../helpers/http.js';
import { TEST_BASE_URL } from '../helpers/service.js';

/**
 * Migration 0014 on a trail recorded before it: the four columns are filled in from the users
 * rows as they are at migration time (null for a user already gone), the entries stay in hash
 * format 1 and verify as before, and the trail goes on in format 2.
 */
describe('migration 0014 on a database that already has audit entries', () => {
  let dataDir: string;
  let testDb: TestDatabase;
  let service: RunningService;
  let api: Api;
  let reader: TestUser;
  let lockId: string;
  const ann = { id: newPublicId(), email: 'ann@example.com', name: 'Ann' };
  const bob = { id: newPublicId(), email: 'bob@example.com', name: null };
  const gone = newPublicId();
  const pre = [
    { type: 'OWNER_ASSIGNED', actorUserId: ann.id, subjectUserId: null, message: 'owner assigned' },
    { type: 'LOCK_SHARED', actorUserId: ann.id, subjectUserId: bob.id, message: 'access shared' },
    { type: 'LOCK_SHARED', actorUserId: ann.id, subjectUserId: gone, message: 'access shared' },
    { type: 'DEVICE_CONNECTED', actorUserId: null, subjectUserId: null, message: 'lock connected' },
  ];

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'latchkey-test-'));
    testDb = await createTestDatabase(dataDir);
    const db = openDatabase(testDb.config);
    const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations(db.dialect) } });
    const { error } = await migrator.migrateTo('0013_cdn_objects');
    if (error) throw error;
    for (const user of [ann, bob]) {
      await db.kysely.insertInto('users').values({ id: user.id, namespace: 'direct', email: user.email, email_normalised: user.email, display_name: user.name, created: 0, updated: 0 } as never).execute();
    }
    // The lock row as migration 0013 knew it (provisionLock writes today's columns).
    lockId = newPublicId();
    await db.kysely
      .insertInto('locks')
      .values({ id: lockId, name: 'Old door', site_id: null, registration_key_hash: 'x'.repeat(64), secret_hash: 'y'.repeat(64), owner_user_id: null, claimed_at: null, default_name: null, unlock_between: null, locked: null, door_open: null, last_operation: null, created: 1_700_000_000, updated: 1_700_000_000 } as never)
      .execute();
    let previous = GENESIS_HASH;
    await db.kysely.transaction().execute(async (tx) => {
      for (const [i, entry] of pre.entries()) {
        const fields = { version: 1 as const, lockId, timestamp: 1_700_000_000 + i, rejected: false, details: null, ...entry };
        const hash = auditEntryHash(previous, fields);
        const { seq } = await tx
          .insertInto('audit_entries')
          .values({ id: newPublicId(), lock_id: lockId, timestamp: fields.timestamp, type: entry.type, actor_user_id: entry.actorUserId, subject_user_id: entry.subjectUserId, rejected: 0, message: entry.message, details: null, prev_hash: previous, hash } as never)
          .returning('seq')
          .executeTakeFirstOrThrow();
        await appendLeaf(tx, db.dialect, await lockTreeHead(tx, db.dialect), { seq, hash });
        previous = hash;
      }
    });
    await db.close();
    // The service migrates at start, and signs the trail it finds.
    service = await startService(loadConfig({ PORT: '0', HOST: '127.0.0.1', BASE_URL: TEST_BASE_URL, DATA_DIR: dataDir, DATABASE_URL: testDb.url, MQTT_PORT: '0', LOG_LEVEL: 'silent', AUDIT_CHECKPOINT_INTERVAL_MS: '0' }, process.cwd()));
    api = new Api(service.url);
    reader = await createUser(api);
    const now = service.ctx.now();
    await service.ctx.db.kysely.insertInto('lock_members').values({ lock_id: lockId, user_id: reader.userId, role: 'ADMIN', starts_at: null, ends_at: null, alias: null, colour: null, created: now, updated: now }).execute();
  });
  after(async () => {
    await service?.close();
    await testDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const stored = () =>
    service.ctx.db.kysely
      .selectFrom('audit_entries')
      .select(['actor_email', 'actor_display_name', 'subject_email', 'subject_display_name', 'hash_version'])
      .where('lock_id', '=', lockId)
      .orderBy('seq')
      .execute();

  it('fills in who acted from the users rows of migration time, null for users already gone, and keeps format 1', async () => {
    assert.deepEqual(await stored(), [
      { actor_email: ann.email, actor_display_name: 'Ann', subject_email: null, subject_display_name: null, hash_version: 1 },
      { actor_email: ann.email, actor_display_name: 'Ann', subject_email: bob.email, subject_display_name: null, hash_version: 1 },
      { actor_email: ann.email, actor_display_name: 'Ann', subject_email: null, subject_display_name: null, hash_version: 1 },
      { actor_email: null, actor_display_name: null, subject_email: null, subject_display_name: null, hash_version: 1 },
    ]);
  });

  it('shows the filled-in values in the lock log, and after a rename records new entries in format 2 that verify with the old ones', async () => {
    await service.ctx.db.kysely.updateTable('users').set({ display_name: 'Ann Renamed' }).where('id', '=', ann.id).execute();
    await recordAuditNow(service.ctx, { lockId, type: 'DOOR_UNLOCK', actorUserId: ann.id });
    const res = await api.get(`/device/${lockId}/log`, { token: reader.authToken, version: 2 });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.map((e: { type: string; email: string | null; displayName: string | null; subject: { email: string | null } | null }) => [e.type, e.email, e.displayName, e.subject?.email ?? null]),
      [
        ['DOOR_UNLOCK', ann.email, 'Ann Renamed'],
        ['DEVICE_CONNECTED', null, null],
        ['LOCK_SHARED', ann.email, 'Ann'],
        ['LOCK_SHARED', ann.email, 'Ann'],
        ['OWNER_ASSIGNED', ann.email, 'Ann'],
      ].map(([type, email, name], i) => [type, email, name, i === 3 ? bob.email : null]),
    );
    assert.equal((await stored()).at(-1)!.hash_version, 3);

    assert.deepEqual(await verifyAuditTrail(service.ctx.db.kysely, { lockId }), { ok: true, locks: 1, entries: 5 });
    const verifier = await checkpointVerifier(service.ctx.config, service.ctx.db, undefined);
    assert.ok(verifier);
    const whole = await verifyAuditLog(service.ctx.db.kysely, { verifier, files: [service.ctx.config.auditCheckpoint.file], waitForSignatureMs: 5000 });
    assert.equal(whole.ok, true, JSON.stringify(whole));
    assert.equal(whole.ok && whole.entries, 5);
  });
});
