import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { GENESIS_HASH } from '../../src/audit/chain.js';
import { AUDIT_CHANNEL } from '../../src/audit/channel.js';
import { recordAudit, recordAuditNow } from '../../src/audit/record.js';
import { verifyAuditTrail, verifyLockChain } from '../../src/audit/verify.js';
import type { AppContext } from '../../src/context.js';
import { newId } from '../../src/crypto/random.js';
import type { Database } from '../../src/db/database.js';
import type { DatabaseSchema } from '../../src/db/schema.js';
import { inTransaction } from '../../src/db/transaction.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

/**
 * The service's context on a PostgreSQL pool of the test's own for the concurrent writers. pg's
 * Pool.end() resolves before its connections have closed, and the service's pool has no 'error'
 * listener, so dropping the test database right after could kill a closing connection and raise
 * an uncaught error; this pool's listener absorbs that at teardown.
 */
function writersContext(t: TestService): { ctx: AppContext; close(): Promise<void> } {
  const config = t.database.config;
  if (config.kind !== 'postgres') return { ctx: t.service.ctx, close: async () => undefined };
  const pool = new pg.Pool({ connectionString: config.url, max: 10 });
  pool.on('error', () => undefined);
  const kysely = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  const db: Database = { kysely, dialect: 'postgres', close: () => kysely.destroy() };
  return { ctx: { ...t.service.ctx, db }, close: () => db.close() };
}

describe('recording audit entries', () => {
  let t: TestService;
  let ctx: AppContext;
  let writers: ReturnType<typeof writersContext>;

  before(async () => {
    t = await startTestService();
    ctx = t.service.ctx;
    writers = writersContext(t);
  });
  after(async () => {
    await writers?.close();
    await t?.close();
  });

  const rowsOf = (lockId: string) => ctx.db.kysely.selectFrom('audit_entries').selectAll().where('lock_id', '=', lockId).orderBy('seq').execute();

  it('chains each lock’s entries from the genesis hash, independently of other locks', async () => {
    const [a, b] = [newId(), newId()];
    const first = await recordAuditNow(ctx, { lockId: a, type: 'OWNER_ASSIGNED', actorUserId: newId() });
    await recordAuditNow(ctx, { lockId: b, type: 'DEVICE_CONNECTED', actorUserId: null });
    const second = await recordAuditNow(ctx, { lockId: a, type: 'DOOR_UNLOCK', actorUserId: null, details: { source: 'button' } });
    assert.equal(first.previousHash, GENESIS_HASH);
    assert.equal(second.previousHash, first.hash);
    assert.ok(second.seq > first.seq);
    const rows = await rowsOf(a);
    assert.deepEqual(rows.map((r) => [r.id, r.prev_hash, r.hash]), [[first.id, GENESIS_HASH, first.hash], [second.id, first.hash, second.hash]]);
    assert.equal(rows[1]!.details, '{"source":"button"}');
    assert.deepEqual(await verifyLockChain(ctx.db.kysely, a), { ok: true, entries: 2, lastHash: second.hash });
    assert.equal((await verifyLockChain(ctx.db.kysely, b)).ok, true);
  });

  it('announces an entry on the bus once its transaction has committed', async () => {
    const lockId = newId();
    const seen: unknown[] = [];
    const off = ctx.bus.subscribe(AUDIT_CHANNEL, (message) => seen.push(message));
    try {
      let seenInside = -1;
      const entry = await inTransaction(ctx.db, ctx.logger, async (uow) => {
        const recorded = await recordAudit(ctx, uow, { lockId, type: 'DOOR_LOCK', actorUserId: null });
        seenInside = seen.length;
        return recorded;
      });
      assert.equal(seenInside, 0);
      await eventually(() => seen.some((m) => (m as { lockId?: string }).lockId === lockId), 'the entry announced');
      assert.deepEqual(seen.filter((m) => (m as { lockId?: string }).lockId === lockId), [{ seq: entry.seq, lockId }]);
    } finally {
      off();
    }
  });

  it('keeps nothing and announces nothing when the transaction rolls back', async () => {
    const lockId = newId();
    const seen: unknown[] = [];
    const off = ctx.bus.subscribe(AUDIT_CHANNEL, (message) => seen.push(message));
    try {
      await assert.rejects(
        inTransaction(ctx.db, ctx.logger, async (uow) => {
          await recordAudit(ctx, uow, { lockId, type: 'LOCK_SHARED', actorUserId: newId(), subjectUserId: newId() });
          throw new Error('the share failed');
        }),
        /the share failed/,
      );
      // A later entry, announced: the rolled-back one, had it been announced, would have come first.
      const later = newId();
      await recordAuditNow(ctx, { lockId: later, type: 'DOOR_LOCK', actorUserId: null });
      await eventually(() => seen.some((m) => (m as { lockId?: string }).lockId === later), 'the later entry announced');
      assert.deepEqual(await rowsOf(lockId), []);
      assert.equal(seen.filter((m) => (m as { lockId?: string }).lockId === lockId).length, 0);
    } finally {
      off();
    }
  });

  it('20 concurrent writers on one lock leave one intact chain', async () => {
    const lockId = newId();
    const entries = await Promise.all(
      Array.from({ length: 20 }, (_, i) => recordAuditNow(writers.ctx, { lockId, type: i % 2 ? 'DOOR_UNLOCK' : 'DOOR_LOCK', actorUserId: newId(), details: { i } })),
    );
    assert.equal(new Set(entries.map((e) => e.previousHash)).size, 20, 'no two entries share a previous entry (no fork)');
    const result = await verifyLockChain(ctx.db.kysely, lockId);
    assert.equal(result.ok, true);
    assert.equal(result.entries, 20);
    const rows = await rowsOf(lockId);
    for (let i = 1; i < rows.length; i += 1) assert.equal(rows[i]!.prev_hash, rows[i - 1]!.hash);
  });

  it('concurrent writers on many locks leave every chain intact', async () => {
    const locks = Array.from({ length: 5 }, () => newId());
    await Promise.all(Array.from({ length: 40 }, (_, i) => recordAuditNow(writers.ctx, { lockId: locks[i % 5]!, type: 'DOOR_OPEN', actorUserId: null })));
    for (const lockId of locks) assert.deepEqual({ ...(await verifyLockChain(ctx.db.kysely, lockId)), lastHash: null }, { ok: true, entries: 8, lastHash: null });
    const whole = await verifyAuditTrail(ctx.db.kysely, { pageSize: 3 });
    assert.equal(whole.ok, true);
  });
});

