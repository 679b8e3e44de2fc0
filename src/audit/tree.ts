import type { DialectName } from '../db/database.js';
import { prepareQuery } from '../db/prepared.js';
import type { Executor } from '../db/transaction.js';
import { Frontier, consistencyPath, inclusionPath, leafHash, subtreeHash, withNodes, type Hash, type NodeLookup } from './merkle.js';

/**
 * The Merkle tree kept in the database (merkle.ts for the hashing): appending costs one read of
 * the head row, one insert of the nodes it completes (two on average) and one update (on
 * PostgreSQL both written with the entry, in one statement: src/audit/record.ts); a proof or a
 * past root costs one read of O(log n) nodes.
 */

/** Nodes are keyed by one integer: level·2^40 + index (2^40 leaves is far beyond any trail). */
export const LEVEL_STRIDE = 2 ** 40;
export const nodePosition = (level: number, index: number): number => level * LEVEL_STRIDE + index;

/** The one row of audit_tree_head. */
export const HEAD_ID = 1;

export type HeadRow = { size: number; frontier: Buffer };
const readHeadRow = prepareQuery<{ id: number }, HeadRow>((db, slot) => db.selectFrom('audit_tree_head').select(['size', 'frontier']).where('id', '=', slot.id));
// PostgreSQL: the row lock, held to commit, makes appenders take turns, so leaf order is commit order.
const lockHeadRow = prepareQuery<{ id: number }, HeadRow>((db, slot) => db.selectFrom('audit_tree_head').select(['size', 'frontier']).where('id', '=', slot.id).forUpdate());
const writeHead = prepareQuery<{ id: number; size: number; frontier: Buffer }>((db, slot) =>
  db.updateTable('audit_tree_head').set({ size: slot.size, frontier: slot.frontier }).where('id', '=', slot.id));
const insertNode = prepareQuery<{ position: number; hash: Buffer; seq: number | null }>((db, slot) =>
  db.insertInto('audit_tree_nodes').values({ position: slot.position, hash: slot.hash, entry_seq: slot.seq }));
// Half the appends complete exactly two nodes (the leaf and its parent): one statement for both.
const insertTwoNodes = prepareQuery<{ leafPosition: number; leafHash: Buffer; seq: number; parentPosition: number; parentHash: Buffer }>((db, slot) =>
  db.insertInto('audit_tree_nodes').values([
    { position: slot.leafPosition, hash: slot.leafHash, entry_seq: slot.seq },
    { position: slot.parentPosition, hash: slot.parentHash, entry_seq: null },
  ]));

/** The leaf data of an entry: its 32-byte chain hash (chain.ts), which commits to all its fields and its lock's previous entry. */
export function entryLeafHash(chainHashHex: string): Hash {
  return leafHash(Buffer.from(chainHashHex, 'hex'));
}

/**
 * Locks the tree head for the rest of the transaction (PostgreSQL; SQLite writes one transaction
 * at a time) and answers the tree as it stands. Call it before any other audit lock, so that
 * every audit writer takes its locks in the same order.
 */
export async function lockTreeHead(db: Executor, dialect: DialectName): Promise<Frontier> {
  const row = await (dialect === 'postgres' ? lockHeadRow : readHeadRow).takeFirst(db, dialect, { id: HEAD_ID });
  if (row === undefined) throw new Error('audit tree head is missing (migration 0008 not run?)');
  return frontierOf(row);
}

/** The tree as its head row stores it. */
export function frontierOf(row: HeadRow): Frontier {
  return Frontier.decode(Number(row.size), row.frontier);
}

/** What appending a leaf writes: the nodes it completed, leaf first, and the new head. */
export interface LeafAppend {
  index: number;
  nodes: Array<{ position: number; hash: Hash }>;
  size: number;
  frontier: Buffer;
}

/** Appends the leaf of the entry whose chain hash is `entryHash` to `tree` (changed in place); answers what to write. */
export function appendToFrontier(tree: Frontier, entryHash: string): LeafAppend {
  const index = tree.size;
  const nodes = tree.append(entryLeafHash(entryHash)).map(([level, nodeIndex, hash]) => ({ position: nodePosition(level, nodeIndex), hash }));
  return { index, nodes, size: tree.size, frontier: tree.encode() };
}

/** Appends entry `seq`'s leaf to a tree read by lockTreeHead in this transaction; answers its leaf index. */
export async function appendLeaf(db: Executor, dialect: DialectName, tree: Frontier, entry: { seq: number; hash: string }): Promise<number> {
  const { index, nodes, size, frontier } = appendToFrontier(tree, entry.hash);
  const [leaf, parent] = nodes;
  if (nodes.length === 2) {
    await insertTwoNodes.execute(db, dialect, { leafPosition: leaf!.position, leafHash: leaf!.hash, seq: entry.seq, parentPosition: parent!.position, parentHash: parent!.hash });
  } else {
    for (const [i, node] of nodes.entries()) await insertNode.execute(db, dialect, { position: node.position, hash: node.hash, seq: i === 0 ? entry.seq : null });
  }
  await writeHead.execute(db, dialect, { id: HEAD_ID, size, frontier });
  return index;
}

/** The committed tree: its size and root. */
export async function readTreeHead(db: Executor, dialect: DialectName): Promise<{ size: number; root: Hash }> {
  const row = await readHeadRow.takeFirst(db, dialect, { id: HEAD_ID });
  if (row === undefined) throw new Error('audit tree head is missing (migration 0008 not run?)');
  const tree = Frontier.decode(Number(row.size), row.frontier);
  return { size: tree.size, root: tree.root() };
}

/** Computes `compute` over the stored nodes it needs, read in one query. */
export function overStoredNodes<T>(db: Executor, compute: (node: NodeLookup) => T): Promise<T> {
  return withNodes(compute, async (keys) => {
    const found = new Map<string, Hash>();
    if (keys.length === 0) return found;
    const rows = await db.selectFrom('audit_tree_nodes').select(['position', 'hash']).where('position', 'in', keys.map(([l, i]) => nodePosition(l, i))).execute();
    for (const row of rows) {
      const position = Number(row.position);
      found.set(`${Math.floor(position / LEVEL_STRIDE)}/${position % LEVEL_STRIDE}`, row.hash);
    }
    return found;
  });
}

export function rootAt(db: Executor, size: number): Promise<Hash> {
  return overStoredNodes(db, (node) => subtreeHash(node, 0, size));
}

export function inclusionProof(db: Executor, leafIndex: number, treeSize: number): Promise<Hash[]> {
  return overStoredNodes(db, (node) => inclusionPath(node, leafIndex, 0, treeSize));
}

export function consistencyProof(db: Executor, from: number, to: number): Promise<Hash[]> {
  return overStoredNodes(db, (node) => consistencyPath(node, from, to));
}
