import assert from 'node:assert/strict';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { auditEntryHash, GENESIS_HASH } from '../../src/audit/chain.js';
import { recordAuditNow } from '../../src/audit/record.js';
import { toChainedEntry } from '../../src/audit/verify.js';
import { latchkey } from '../helpers/cli.js';
import { claimLock } from '../helpers/locks.js';
import { TEST_BASE_URL, useService } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';
import { treeRows } from './rfc9162.js';

type Json = Record<string, unknown>;
const TABLES = ['audit_entries', 'audit_tree_nodes', 'audit_tree_head', 'audit_checkpoints'] as const;

describe('latchkey audit verify against tampering done directly in the database', () => {
  const t = useService({ env: { AUDIT_CHECKPOINT_INTERVAL_MS: '0', AUDIT_PUBLIC_CHECKPOINT_INTERVAL_S: '0' }, withUser: true });
  let lockA: string;
  let lockB: string;
  let witnessFile: string;
  let verifierKey: string;
  const db = () => t.service.ctx.db.kysely as any;

  /** `latchkey audit ARGS` as an operator runs it on the service's machine (in this process: test/helpers/cli.ts; test/audit/verify-cli.test.ts runs the executable). */
  async function cli(...args: string[]): Promise<{ code: number; json: Json; stdout: string; stderr: string }> {
    const { code, stdout, stderr } = await latchkey(['audit', ...args], { ...process.env, DATABASE_URL: t.database.url, DATA_DIR: t.dataDir, BASE_URL: 'http://elsewhere.example', AUDIT_CHECKPOINT_INTERVAL_MS: '0', LOG_LEVEL: 'silent' });
    let json: Json = {};
    try {
      json = JSON.parse(stdout.trim()) as Json;
    } catch {
      // not a JSON command
    }
    return { code, json, stdout, stderr };
  }

  async function entries(lockId?: string): Promise<any[]> {
    return db().selectFrom('audit_entries').selectAll().$if(lockId !== undefined, (q: any) => q.where('lock_id', '=', lockId)).orderBy('seq').execute();
  }

  /** As an attacker would: recompute a lock's chain hashes after changing its entries. */
  async function rechain(lockId: string): Promise<void> {
    let previous = GENESIS_HASH;
    for (const row of await entries(lockId)) {
      const hash = auditEntryHash(previous, toChainedEntry(row)!);
      await db().updateTable('audit_entries').set({ prev_hash: previous, hash }).where('seq', '=', row.seq).execute();
      previous = hash;
    }
  }

  /** As an attacker would: rebuild the whole Merkle tree (nodes and head) from the entries as they now are. */
  async function rebuildTree(): Promise<void> {
    const rows = await entries();
    const { nodes, frontier } = treeRows(rows.map((r) => Buffer.from(r.hash, 'hex')));
    await db().deleteFrom('audit_tree_nodes').execute();
    for (let i = 0; i < nodes.length; i += 100) {
      await db().insertInto('audit_tree_nodes').values(nodes.slice(i, i + 100).map((n) => ({ position: n.position, hash: n.hash, entry_seq: n.level === 0 ? rows[n.index].seq : null }))).execute();
    }
    await db().updateTable('audit_tree_head').set({ size: rows.length, frontier }).where('id', '=', 1).execute();
  }

  /** Tampers with the database for the length of `check`, then puts every audit table back as it was. */
  async function whileTampered(tamper: () => Promise<void>, check: () => Promise<void>): Promise<void> {
    const saved = new Map<string, unknown[]>();
    for (const table of TABLES) saved.set(table, await db().selectFrom(table).selectAll().execute());
    try {
      await tamper();
      await check();
    } finally {
      for (const table of TABLES) await db().deleteFrom(table).execute();
      for (const table of TABLES) {
        const rows = saved.get(table)!;
        for (let i = 0; i < rows.length; i += 100) await db().insertInto(table).values(rows.slice(i, i + 100)).execute();
      }
    }
  }

  async function expectBroken(problems: string[], ...args: string[]): Promise<Json> {
    const result = await cli('verify', ...args);
    assert.equal(result.code, 1, `${result.stdout} ${result.stderr}`);
    assert.equal(result.json.ok, false);
    assert.ok(problems.includes(result.json.problem as string), `expected ${problems.join(' or ')}, got ${result.json.problem}: ${result.json.detail}`);
    return result.json;
  }

  async function signedUpTo(size: number): Promise<void> {
    await eventually(async () => (await t.api.get('/audit/checkpoint')).body?.treeSize === size, `a checkpoint of ${size} entries`).catch(() => undefined);
  }

  before(async () => {
    ({ id: lockA } = await claimLock(t, t.user));
    ({ id: lockB } = await claimLock(t, t.user));
    const client = { actorIp: '203.0.113.7', userAgent: { type: 'KMP_SDK_JVM', version: '1.2.3' } };
    for (let i = 0; i < 8; i++) await recordAuditNow(t.service.ctx, { lockId: i % 2 ? lockB : lockA, type: 'DOOR_UNLOCK', actorUserId: t.user.userId, details: { i }, client });
    await signedUpTo((await entries()).length);
    witnessFile = join(t.dataDir, 'witness-checkpoints');
    const witnessed = await cli('checkpoint', '--url', t.service.url, '--save', witnessFile);
    assert.equal(witnessed.code, 0, witnessed.stderr);
    verifierKey = /verifier key: (\S+)/.exec(witnessed.stdout)![1]!;
  });

  it('passes on the untouched log and prints the checkpoint it verified against', async () => {
    const result = await cli('verify');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.equal(result.json.ok, true);
    assert.equal(result.json.entries, (await entries()).length);
    assert.match(result.json.checkpoint as string, new RegExp(`^${new URL(TEST_BASE_URL).host}/audit\\n${result.json.treeSize}\\n`));
    assert.equal(result.json.verifierKey, verifierKey);
    const printed = await cli('checkpoint');
    assert.equal(printed.code, 0, printed.stderr);
    assert.ok(printed.stdout.includes((result.json.checkpoint as string).trimEnd()));
    assert.ok(printed.stdout.includes(verifierKey));
  });

  it('fails on an edited entry', async () => {
    const target = (await entries(lockA))[2];
    await whileTampered(
      () => db().updateTable('audit_entries').set({ actor_user_id: null }).where('seq', '=', target.seq).execute(),
      async () => assert.equal((await expectBroken(['entry edited'])).id, target.id),
    );
  });

  it("fails on an actor's recorded email, display name, address or user agent edited, even with the entry passed off as an older format", async () => {
    const target = (await entries(lockA))[3];
    assert.equal(target.hash_version, 3);
    assert.equal(target.actor_email, t.user.email);
    assert.deepEqual([target.actor_ip, target.user_agent_type, target.user_agent_version], ['203.0.113.7', 'KMP_SDK_JVM', '1.2.3']);
    const changes = [
      { actor_email: 'someone-else@example.com' }, { actor_display_name: 'Someone Else' }, { actor_email: 'someone-else@example.com', hash_version: 1 },
      { actor_ip: '198.51.100.1' }, { user_agent_type: 'KMP_SDK_ANDROID', user_agent_version: '9.9.9' }, { actor_ip: null, hash_version: 2 },
    ];
    for (const change of changes) {
      await whileTampered(
        () => db().updateTable('audit_entries').set(change).where('seq', '=', target.seq).execute(),
        async () => {
          assert.equal((await expectBroken(['entry edited'])).id, target.id, JSON.stringify(change));
          const chain = await cli('verify', '--lock', lockA);
          assert.equal(chain.code, 1, chain.stdout);
          assert.deepEqual([chain.json.id, chain.json.reason], [target.id, 'hash mismatch']);
        },
      );
    }
    await whileTampered(async () => {
      await db().updateTable('audit_entries').set({ actor_email: 'someone-else@example.com' }).where('seq', '=', target.seq).execute();
      await rechain(lockA);
      await rebuildTree();
    }, async () => void (await expectBroken(['checkpoint mismatch'])));
  });

  it('fails on a rewritten entry whose chain and tree were recomputed', async () => {
    const target = (await entries(lockA))[2];
    await whileTampered(async () => {
      await db().updateTable('audit_entries').set({ message: 'lock locked', type: 'DOOR_LOCK' }).where('seq', '=', target.seq).execute();
      await rechain(lockA);
      await rebuildTree();
    }, async () => void (await expectBroken(['checkpoint mismatch'])));
  });

  it('fails on a forged appended entry, whether or not the tree was extended for it', async () => {
    const last = (await entries(lockB)).at(-1);
    const forged = { ...toChainedEntry(last)!, timestamp: last.timestamp + 1, type: 'DOOR_UNLOCK', actorUserId: t.user.userId };
    const { seq: _seq, ...copied } = last;
    const row = { ...copied, id: '0190a0a0-0000-7000-8000-000000000001', timestamp: forged.timestamp, type: 'DOOR_UNLOCK', actor_user_id: t.user.userId, prev_hash: last.hash, hash: auditEntryHash(last.hash, forged) };
    await whileTampered(() => db().insertInto('audit_entries').values(row).execute(), async () => void (await expectBroken(['entry outside the tree'])));
    await whileTampered(async () => {
      await db().insertInto('audit_entries').values(row).execute();
      await rebuildTree();
    }, async () => void (await expectBroken(['unsigned entries'])));
  });

  it('fails on a deleted middle entry, whether or not chain and tree were recomputed', async () => {
    const target = (await entries())[4];
    await whileTampered(() => db().deleteFrom('audit_entries').where('seq', '=', target.seq).execute(), async () => void (await expectBroken(['entry deleted'])));
    await whileTampered(async () => {
      await db().deleteFrom('audit_entries').where('seq', '=', target.seq).execute();
      await rechain(target.lock_id);
      await rebuildTree();
    }, async () => void (await expectBroken(['checkpoint mismatch', 'log truncated'])));
  });

  it('fails on a truncated tail, even with the database checkpoints beyond it removed', async () => {
    const all = await entries();
    const keep = all.length - 2;
    await whileTampered(async () => {
      await db().deleteFrom('audit_entries').where('seq', '>', all[keep - 1].seq).execute();
      await rebuildTree();
      await db().deleteFrom('audit_checkpoints').where('tree_size', '>', keep).execute();
    }, async () => void (await expectBroken(['log truncated'])));
  });

  it("fails on a lock's trail deleted, even with every checkpoint kept in the database or beside it gone", async () => {
    await whileTampered(async () => {
      await db().deleteFrom('audit_entries').where('lock_id', '=', lockB).execute();
      await rechain(lockA);
      await rebuildTree();
    }, async () => void (await expectBroken(['checkpoint mismatch', 'log truncated'])));
    const outside = t.config.auditCheckpoint.file;
    await whileTampered(async () => {
      await db().deleteFrom('audit_entries').where('lock_id', '=', lockB).execute();
      await rebuildTree();
      await db().deleteFrom('audit_checkpoints').execute();
      await rename(outside, `${outside}.moved`);
    }, async () => {
      try {
        await expectBroken(['lock without trail', 'unsigned entries']);
      } finally {
        await rename(`${outside}.moved`, outside);
      }
    });
  });

  it("witnesses that the log only grew, and catches with that copy what the service's own copies no longer show", async () => {
    const earlier = (await entries()).length; // signed in before()
    for (let i = 0; i < 2; i++) await recordAuditNow(t.service.ctx, { lockId: lockA, type: 'DOOR_LOCK', actorUserId: null });
    await signedUpTo((await entries()).length);
    const again = await cli('checkpoint', '--url', t.service.url, '--key', verifierKey, '--save', witnessFile);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, new RegExp(`consistent with the checkpoint of ${earlier} entries`));

    // The attacker cuts the log back to the earlier signed size and removes every later
    // checkpoint, in the database and beside it: only the witness's copy still shows it was longer.
    const all = await entries();
    const outside = t.config.auditCheckpoint.file;
    await whileTampered(async () => {
      await db().deleteFrom('audit_entries').where('seq', '>', all[earlier - 1].seq).execute();
      await rebuildTree();
      await db().deleteFrom('audit_checkpoints').where('tree_size', '>', earlier).execute();
      await rename(outside, `${outside}.moved`);
    }, async () => {
      try {
        const blind = await cli('verify');
        assert.equal(blind.code, 0, `without a copy kept elsewhere, a cut at a signed size cannot be seen: ${blind.stdout}`);
        await expectBroken(['log truncated'], '--checkpoint', witnessFile, '--key', verifierKey);
      } finally {
        await rename(`${outside}.moved`, outside);
      }
    });
    const intact = await cli('verify', '--checkpoint', witnessFile, '--key', verifierKey);
    assert.equal(intact.code, 0, intact.stdout);
  });
});
