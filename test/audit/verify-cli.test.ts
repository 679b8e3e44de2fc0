import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { recordAuditNow, type AuditEntry } from '../../src/audit/record.js';
import type { AppContext } from '../../src/context.js';
import { newId } from '../../src/crypto/random.js';
import { latchkey, latchkeyProcess, type ProcessResult } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('latchkey audit verify', () => {
  let t: TestService;
  let ctx: AppContext;
  let lockA: string;
  let lockB: string;
  let entries: AuditEntry[];

  before(async () => {
    t = await startTestService();
    ctx = t.service.ctx;
    [lockA, lockB] = [newId(), newId()];
    entries = [];
    for (let i = 0; i < 6; i += 1) {
      entries.push(await recordAuditNow(ctx, { lockId: i % 2 ? lockB : lockA, type: 'DOOR_UNLOCK', actorUserId: newId(), details: { i } }));
    }
  });
  after(() => t?.close());

  const serviceEnv = () => ({ DATABASE_URL: t.database.url, DATA_DIR: t.dataDir });

  /** Runs the CLI's `audit verify` against the test's database, as an operator would (in this process: test/helpers/cli.ts). */
  function verify(...args: string[]): Promise<{ code: number | null; json: Record<string, unknown>; stderr: string }> {
    return verifyWith(serviceEnv(), ...args);
  }

  async function verifyWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; json: Record<string, unknown>; stderr: string }> {
    return asJson(await latchkey(['audit', 'verify', ...args], { ...process.env, DATABASE_URL: '', ...env, LOG_LEVEL: 'silent' }));
  }

  function asJson({ code, stdout, stderr }: ProcessResult): { code: number | null; json: Record<string, unknown>; stderr: string } {
    return { code, json: stdout.trim() ? (JSON.parse(stdout.trim()) as Record<string, unknown>) : {}, stderr };
  }

  /** Changes a row behind the service's back for the length of `check`, then puts it back. */
  async function whileAltered(id: string, change: { message?: string; rejected?: 0 | 1; details?: string | null }, check: () => Promise<void>): Promise<void> {
    const db = ctx.db.kysely;
    const original = await db.selectFrom('audit_entries').select(['message', 'rejected', 'details']).where('id', '=', id).executeTakeFirstOrThrow();
    await db.updateTable('audit_entries').set(change).where('id', '=', id).execute();
    try {
      await check();
    } finally {
      await db.updateTable('audit_entries').set(original).where('id', '=', id).execute();
    }
  }

  it('passes on intact chains (exit 0), for all locks or one', async () => {
    const all = await verify();
    assert.equal(all.code, 0, all.stderr);
    assert.equal(all.json.ok, true);
    assert.ok((all.json.locks as number) >= 2);
    assert.ok((all.json.entries as number) >= 6);
    const one = await verify('--lock', lockA);
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(one.json, { ok: true, locks: 1, entries: 3 });
  });

  it('detects a row altered directly in the database, exits 1 and names the entry', async () => {
    const target = entries[2]!; // lock A's second entry
    await whileAltered(target.id, { message: 'lock locked' }, async () => {
      // The executable itself, once: its own process, its exit status and its standard output.
      const result = asJson(await latchkeyProcess(['audit', 'verify'], { ...process.env, ...serviceEnv(), LOG_LEVEL: 'silent' }));
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.json.problem, 'entry edited');
      assert.equal(result.json.lockId, lockA);
      assert.equal(result.json.seq, target.seq);
      assert.equal(result.json.id, target.id);
      const one = await verify('--lock', lockA);
      assert.deepEqual(one.json, { ok: false, lockId: lockA, seq: target.seq, id: target.id, reason: 'hash mismatch' });
      const other = await verify('--lock', lockB);
      assert.equal(other.code, 0, 'the other lock’s chain is untouched');
    });
  });

  it('detects a changed rejected flag', async () => {
    const target = entries[3]!;
    await whileAltered(target.id, { rejected: 1 }, async () => {
      const result = await verify('--lock', lockB);
      assert.equal(result.code, 1);
      assert.equal(result.json.id, target.id);
    });
  });

  it('finds an empty trail, not a broken one, in a data directory never served', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'latchkey-verify-'));
    try {
      const result = await verifyWith({ DATA_DIR: fresh });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(result.json, { ok: true, entries: 0, locks: 0, treeSize: 0, checkpoint: null });
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('answers a usage error (exit 2) for an empty, malformed or unknown --lock', async () => {
    for (const lock of ['', 'not-a-uuid', newId()]) {
      const result = await verify('--lock', lock);
      assert.equal(result.code, 2, lock);
      assert.match(result.stderr, /--lock|unknown lock/);
    }
  });
});
