import assert from 'node:assert/strict';
import { Frontier, leafHash } from '../../src/audit/merkle.js';
import { recordAuditNow, type AuditEntry, type AuditInput } from '../../src/audit/record.js';
import { nodePosition, readTreeHead } from '../../src/audit/tree.js';
import { verifyAuditTrail } from '../../src/audit/verify.js';
import type { AppContext } from '../../src/context.js';
import { provisionLock } from '../helpers/locks.js';
import type { TestService } from '../helpers/service.js';

type Role = 'ADMIN' | 'USER';

/**
 * A provisioned lock whose members are written straight into `lock_members`, so that the only
 * audit entries on it are the ones a test records itself (the claim and share flows, which audit
 * on their own, are covered by flows.test.ts).
 */
export async function lockWithMembers(t: TestService, members: Record<string, Role | { role: Role; end: number }> = {}): Promise<string> {
  const ctx = t.service.ctx;
  const { id } = await provisionLock(t);
  const now = ctx.now();
  for (const [userId, member] of Object.entries(members)) {
    const { role, end } = typeof member === 'string' ? { role: member, end: null } : member;
    await ctx.db.kysely.insertInto('lock_members').values({ lock_id: id, user_id: userId, role, starts_at: null, ends_at: end, alias: null, colour: null, created: now, updated: now }).execute();
  }
  return id;
}

/** Records an entry as of Unix time `at`, through the real recorder. */
export function recordAt(ctx: AppContext, at: number, input: AuditInput): Promise<AuditEntry> {
  return recordAuditNow({ ...ctx, now: () => at }, input);
}

/**
 * Asserts that the stored Merkle tree (its nodes, the head's size, root and frontier) is the one
 * TypeScript's Frontier builds from the entries' hashes in seq order, and that the verifier passes
 * every lock's chain. Answers the entries, by seq.
 */
export async function assertTreeAndChains(ctx: AppContext): Promise<Array<{ seq: number; hash: string }>> {
  const rows = await ctx.db.kysely.selectFrom('audit_entries').select(['seq', 'hash', 'lock_id']).orderBy('seq').execute();
  const tree = new Frontier();
  const nodes = new Map<number, { hash: string; seq: number | null }>();
  for (const row of rows) {
    for (const [i, [level, index, hash]] of tree.append(leafHash(Buffer.from(row.hash, 'hex'))).entries()) {
      nodes.set(nodePosition(level, index), { hash: hash.toString('hex'), seq: i === 0 ? Number(row.seq) : null });
    }
  }
  const stored = await ctx.db.kysely.selectFrom('audit_tree_nodes').select(['position', 'hash', 'entry_seq']).orderBy('position').execute();
  assert.deepEqual(new Map(stored.map((node) => [Number(node.position), { hash: Buffer.from(node.hash).toString('hex'), seq: node.entry_seq === null ? null : Number(node.entry_seq) }])), nodes);
  const head = await readTreeHead(ctx.db.kysely, ctx.db.dialect);
  assert.equal(head.size, rows.length);
  assert.equal(head.root.toString('hex'), tree.root().toString('hex'));
  const headRow = await ctx.db.kysely.selectFrom('audit_tree_head').select('frontier').executeTakeFirstOrThrow();
  assert.equal(Buffer.from(headRow.frontier).toString('hex'), tree.encode().toString('hex'));
  assert.deepEqual(await verifyAuditTrail(ctx.db.kysely), { ok: true, locks: new Set(rows.map((row) => row.lock_id)).size, entries: rows.length });
  return rows.map((row) => ({ seq: Number(row.seq), hash: row.hash }));
}
