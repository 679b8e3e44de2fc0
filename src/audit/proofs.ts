import { assertAllowed, canReadAdminData } from '../access/member-policy.js';
import type { Caller } from '../accounts/caller.js';
import type { AppContext } from '../context.js';
import { errors } from '../errors/catalogue.js';
import type { CheckpointKey } from './checkpoint-key.js';
import { findReaderEnrolment, lockLogPage, type AuditRow, type PageQuery } from './queries.js';
import { consistencyProof, inclusionProof, readTreeHead } from './tree.js';
import type { Executor } from '../db/transaction.js';

export interface SignedCheckpoint {
  treeSize: number;
  rootHash: Buffer;
  note: string;
}

export async function latestCheckpoint(db: Executor): Promise<SignedCheckpoint | undefined> {
  const row = await db.selectFrom('audit_checkpoints').select(['tree_size', 'root_hash', 'note']).orderBy('tree_size', 'desc').limit(1).executeTakeFirst();
  return row && { treeSize: Number(row.tree_size), rootHash: row.root_hash, note: row.note };
}

/**
 * The checkpoint an anonymous caller sees (issue 27 point 8): the newest signed by the last
 * multiple of AUDIT_PUBLIC_CHECKPOINT_INTERVAL_S, so the log stays witnessable while the tree size
 * moves for outsiders once an interval, not with every unlock. Signed-in callers see the latest.
 */
async function publicCheckpoint(ctx: AppContext): Promise<SignedCheckpoint | undefined> {
  const interval = ctx.config.auditCheckpoint.publicIntervalSeconds;
  if (interval === 0) return latestCheckpoint(ctx.db.kysely);
  const boundary = Math.floor(ctx.now() / interval) * interval;
  const row = await ctx.db.kysely.selectFrom('audit_checkpoints').select(['tree_size', 'root_hash', 'note']).where('signed_at', '<=', boundary).orderBy('tree_size', 'desc').limit(1).executeTakeFirst();
  return row && { treeSize: Number(row.tree_size), rootHash: row.root_hash, note: row.note };
}

/** The latest signed checkpoint, or the public one for an anonymous caller (404 before there is one), and the key that signed it. */
export async function readCheckpoint(ctx: AppContext, anonymous: boolean): Promise<{ checkpoint: SignedCheckpoint; key: CheckpointKey }> {
  const checkpoint = anonymous ? await publicCheckpoint(ctx) : await latestCheckpoint(ctx.db.kysely);
  if (!checkpoint) throw errors.notFound('checkpoint');
  return { checkpoint, key: await ctx.checkpoints.signingKey() };
}

export function checkpointKey(ctx: AppContext): Promise<CheckpointKey> {
  return ctx.checkpoints.signingKey();
}

/**
 * The consistency proof between two sizes of the tree as it stands (0 < from ≤ to ≤ its size); for
 * an anonymous caller `to` goes no further than the public checkpoint, so probing sizes tells no more.
 */
export async function readConsistencyProof(ctx: AppContext, from: number, to: number, anonymous: boolean): Promise<Buffer[]> {
  const size = anonymous ? ((await publicCheckpoint(ctx))?.treeSize ?? 0) : (await readTreeHead(ctx.db.kysely, ctx.db.dialect)).size;
  if (from < 1 || from > to || to > size) throw errors.badRequest(`tree sizes must satisfy 1 ≤ from ≤ to ≤ ${size}`);
  return consistencyProof(ctx.db.kysely, from, to);
}

/** An entry with its leaf index and inclusion proof in a tree of `treeSize` (proof null when the entry is not in it). */
export interface ProvenEntry {
  row: AuditRow;
  leafIndex: number | null;
  proof: Buffer[] | null;
}

async function leafIndexes(db: Executor, seqs: number[]): Promise<Map<number, number>> {
  if (seqs.length === 0) return new Map();
  const rows = await db.selectFrom('audit_tree_nodes').select(['position', 'entry_seq']).where('entry_seq', 'in', seqs).execute();
  return new Map(rows.map((r) => [Number(r.entry_seq), Number(r.position)]));
}

/** The tree size proofs are made in: the one asked for (≤ the tree's), else the latest signed checkpoint's. */
async function proofTreeSize(ctx: AppContext, asked: number | undefined): Promise<number> {
  if (asked !== undefined) {
    const head = await readTreeHead(ctx.db.kysely, ctx.db.dialect);
    if (asked < 1 || asked > head.size) throw errors.badRequest(`treeSize must be from 1 to ${head.size}`);
    return asked;
  }
  return (await latestCheckpoint(ctx.db.kysely))?.treeSize ?? 0;
}

async function prove(ctx: AppContext, rows: AuditRow[], treeSize: number): Promise<ProvenEntry[]> {
  const indexes = await leafIndexes(ctx.db.kysely, rows.map((r) => r.seq));
  return Promise.all(
    rows.map(async (row) => {
      const leafIndex = indexes.get(row.seq) ?? null;
      const proof = leafIndex !== null && leafIndex < treeSize ? await inclusionProof(ctx.db.kysely, leafIndex, treeSize) : null;
      return { row, leafIndex, proof };
    }),
  );
}

async function assertMayReadLog(ctx: AppContext, caller: Caller, lockId: string): Promise<void> {
  const member = await findReaderEnrolment(ctx.db.kysely, lockId, caller.userId);
  if (!member) throw errors.notFound('lock');
  assertAllowed(canReadAdminData(member, ctx.now()));
}

/**
 * A page of a lock's log (newest first, every type) with inclusion proofs: for those who may read
 * the log. One entry more than the page is read, so `next` (the cursor of the page after) says
 * whether the entries asked for go on: a page is never cut short without saying so.
 */
export async function readLockLogProofs(ctx: AppContext, caller: Caller, lockId: string, page: PageQuery, asked?: number): Promise<{ treeSize: number; entries: ProvenEntry[]; next: string | null }> {
  await assertMayReadLog(ctx, caller, lockId);
  const treeSize = await proofTreeSize(ctx, asked);
  const rows = await lockLogPage(ctx.db.kysely, lockId, { ...page, limit: page.limit + 1 });
  const shown = rows.slice(0, page.limit);
  return { treeSize, entries: await prove(ctx, shown, treeSize), next: rows.length > page.limit ? String(shown.at(-1)!.seq) : null };
}

/** One entry with its inclusion proof; 404 for an entry the caller may not read. */
export async function readEntryProof(ctx: AppContext, caller: Caller, entryId: string, asked?: number): Promise<{ treeSize: number; entry: ProvenEntry }> {
  const row = await ctx.db.kysely.selectFrom('audit_entries').selectAll().where('id', '=', entryId).executeTakeFirst();
  const member = row && (await findReaderEnrolment(ctx.db.kysely, row.lock_id, caller.userId));
  // Whoever may not read the entry's log learns nothing of it, not even that it exists.
  if (!row || !member || !canReadAdminData(member, ctx.now()).allowed) throw errors.notFound('entry');
  const treeSize = await proofTreeSize(ctx, asked);
  return { treeSize, entry: (await prove(ctx, [row], treeSize))[0]! };
}

/**
 * The entry of `seq` with its inclusion proof in the tree of the latest signed checkpoint, for a
 * webhook delivery (src/webhooks): 'uncovered' while no checkpoint covers it yet, null when there
 * is no such entry.
 */
export async function entryUnderLatestCheckpoint(db: Executor, seq: number): Promise<{ entry: ProvenEntry; checkpoint: SignedCheckpoint } | 'uncovered' | null> {
  const row = await db.selectFrom('audit_entries').selectAll().where('seq', '=', seq).executeTakeFirst();
  if (!row) return null;
  const leafIndex = (await leafIndexes(db, [row.seq])).get(row.seq);
  const checkpoint = await latestCheckpoint(db);
  if (leafIndex === undefined || !checkpoint || leafIndex >= checkpoint.treeSize) return 'uncovered';
  return { entry: { row, leafIndex, proof: await inclusionProof(db, leafIndex, checkpoint.treeSize) }, checkpoint };
}
