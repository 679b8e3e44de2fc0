import { createHash } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../database.js';
import { columnTypes } from './helpers.js';

/**
 * The Merkle tree over the audit log (src/audit/merkle.ts, docs/audit-log.md): each entry's leaf
 * index, the perfect-subtree nodes keyed by `position` = level·2^40 + index, the tree head (its
 * size and right edge; its row is what concurrent appenders lock, so leaves follow commit order)
 * and the signed checkpoints. Entries already recorded become the first leaves, in `seq` order.
 *
 * The hashing is written out here rather than imported: a migration must do forever what it did
 * when it was merged.
 */
export function auditTreeMigration(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  const big = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('audit_tree_nodes')
        .addColumn('position', big, (c) => c.primaryKey())
        .addColumn('hash', t.bytes, (c) => c.notNull())
        .addColumn('entry_seq', big)
        .execute();
      await db.schema.createIndex('audit_tree_nodes_entry_seq').on('audit_tree_nodes').column('entry_seq').unique().execute();
      await db.schema
        .createTable('audit_tree_head')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('size', big, (c) => c.notNull())
        .addColumn('frontier', t.bytes, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('audit_checkpoints')
        .addColumn('tree_size', big, (c) => c.primaryKey())
        .addColumn('root_hash', t.bytes, (c) => c.notNull())
        .addColumn('note', 'text', (c) => c.notNull())
        .addColumn('signed_at', t.time, (c) => c.notNull())
        .execute();
      await backfill(db);
    },
  };
}

const LEVEL_STRIDE = 2 ** 40;
const sha256 = (...parts: Uint8Array[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();

/** Appends every existing entry, oldest first, as the tree's leaves (leaf data: the entry's 32-byte chain hash). */
async function backfill(db: Kysely<unknown>): Promise<void> {
  const frontier: Buffer[] = [];
  let size = 0;
  let afterSeq = -1;
  for (;;) {
    const { rows } = await sql<{ seq: number; hash: string }>`select seq, hash from audit_entries where seq > ${afterSeq} order by seq limit 1000`.execute(db);
    if (rows.length === 0) break;
    const nodes: Array<{ position: number; hash: Buffer; entry_seq: number | null }> = [];
    for (const row of rows) {
      const index = size;
      let carry = sha256(Buffer.from([0]), Buffer.from(row.hash, 'hex'));
      nodes.push({ position: index, hash: carry, entry_seq: row.seq });
      for (let level = 0; Math.floor(index / 2 ** level) % 2 === 1; level++) {
        carry = sha256(Buffer.from([1]), frontier.pop()!, carry);
        nodes.push({ position: (level + 1) * LEVEL_STRIDE + Math.floor(index / 2 ** (level + 1)), hash: carry, entry_seq: null });
      }
      frontier.push(carry);
      size += 1;
    }
    for (let i = 0; i < nodes.length; i += 200) await db.insertInto('audit_tree_nodes' as never).values(nodes.slice(i, i + 200) as never).execute();
    afterSeq = rows[rows.length - 1]!.seq;
  }
  await db.insertInto('audit_tree_head' as never).values({ id: 1, size, frontier: Buffer.concat(frontier) } as never).execute();
}
