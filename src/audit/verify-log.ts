import { readFile } from 'node:fs/promises';
import type { Executor } from '../db/transaction.js';
import { auditEntryHash, GENESIS_HASH } from './chain.js';
import { Frontier, leafHash, type Hash } from './merkle.js';
import { openCheckpoint, splitCheckpointFile, type Checkpoint, type NoteVerifier } from './note.js';
import { LEVEL_STRIDE } from './tree.js';
import { toChainedEntry } from './verify.js';

/**
 * `latchkey audit verify`: recomputes the whole log's Merkle tree from the entries themselves
 * (each entry's chain hash from its fields, each lock's chain, each leaf) and checks it against
 * every signed checkpoint it is given: the database's, the outside file's, a third party's. A
 * database writer can recompute hashes but cannot sign, so an edited, rewritten, deleted or
 * truncated entry shows as a root that no longer matches a checkpoint; an entry slipped in
 * behind the service's back shows as outside the tree or beyond every checkpoint.
 */

export type LogProblem =
  | 'entry edited' | 'chain broken' | 'leaf missing' | 'entry deleted' | 'entry outside the tree' | 'tree head mismatch'
  | 'checkpoint mismatch' | 'log truncated' | 'unsigned entries' | 'bad checkpoint' | 'lock without trail';

export type LogVerification =
  | { ok: true; entries: number; locks: number; treeSize: number; rootHash: string; checkpoint: string | null }
  | { ok: false; problem: LogProblem; detail: string; seq?: number; id?: string; lockId?: string; leafIndex?: number; checkpoint?: string | null };

class Broken extends Error {
  constructor(readonly result: Extract<LogVerification, { ok: false }>) {
    super(result.detail);
  }
}
const broken = (problem: LogProblem, detail: string, extra: Partial<Extract<LogVerification, { ok: false }>> = {}): Broken => new Broken({ ok: false, problem, detail, ...extra });

/** A checkpoint to check, and where it came from (for the message). */
interface SourcedCheckpoint extends Checkpoint {
  source: string;
  note: string;
}

export interface VerifyLogOptions {
  verifier: NoteVerifier;
  /** Checkpoint files (the service's outside copy, a third party's): notes, each followed by a blank line. */
  files?: string[];
  /** How long to wait for the service to sign entries newer than the latest checkpoint. */
  waitForSignatureMs?: number;
  pageSize?: number;
}

function open(note: string, verifier: NoteVerifier, source: string): SourcedCheckpoint {
  try {
    const checkpoint = openCheckpoint(note, verifier);
    if (checkpoint.origin !== verifier.name) throw new Error(`origin ${checkpoint.origin} is not ${verifier.name}`);
    return { ...checkpoint, source, note };
  } catch (err) {
    throw broken('bad checkpoint', `${source}: ${(err as Error).message}`);
  }
}

async function databaseCheckpoints(db: Executor, verifier: NoteVerifier): Promise<SourcedCheckpoint[]> {
  const rows = await db.selectFrom('audit_checkpoints').select(['tree_size', 'note']).orderBy('tree_size').execute();
  return rows.map((row) => {
    const checkpoint = open(row.note, verifier, `checkpoint ${row.tree_size} in the database`);
    if (checkpoint.size !== Number(row.tree_size)) throw broken('bad checkpoint', `checkpoint row ${row.tree_size} holds a note of size ${checkpoint.size}`);
    return checkpoint;
  });
}

async function fileCheckpoints(file: string, verifier: NoteVerifier): Promise<SourcedCheckpoint[]> {
  let notes: string[];
  try {
    notes = splitCheckpointFile(await readFile(file, 'utf8'));
  } catch (err) {
    throw broken('bad checkpoint', `${file}: ${(err as Error).message}`);
  }
  return notes.map((note, i) => open(note, verifier, `${file}, checkpoint ${i + 1}`));
}

/** The recomputation, resumable: leaves are read in pages and folded into the frontier. */
class Recomputation {
  readonly tree = new Frontier();
  readonly lastHashOfLock = new Map<string, string>();
  readonly roots = new Map<number, Hash>();

  constructor(private readonly db: Executor, private readonly wanted: Set<number>, private readonly pageSize: number) {}

  /** Folds in the leaves up to `size` (exclusive). */
  async extendTo(size: number): Promise<void> {
    while (this.tree.size < size) {
      const rows = await this.db
        .selectFrom('audit_tree_nodes as n')
        .leftJoin('audit_entries as e', 'e.seq', 'n.entry_seq')
        .select(['n.position', 'n.entry_seq'])
        .select(['e.seq', 'e.id', 'e.lock_id', 'e.timestamp', 'e.type', 'e.actor_user_id', 'e.subject_user_id', 'e.rejected', 'e.message', 'e.details', 'e.prev_hash', 'e.hash'])
        .select(['e.actor_email', 'e.actor_display_name', 'e.subject_email', 'e.subject_display_name', 'e.hash_version', 'e.actor_ip', 'e.user_agent_type', 'e.user_agent_version'])
        .where('n.position', '>=', this.tree.size)
        .where('n.position', '<', Math.min(size, LEVEL_STRIDE))
        .orderBy('n.position')
        .limit(this.pageSize)
        .execute();
      if (rows.length === 0) throw broken('leaf missing', `the tree has no leaf ${this.tree.size}`, { leafIndex: this.tree.size });
      for (const row of rows) this.fold(row);
    }
  }

  private fold(row: Record<string, unknown> & { position: number; seq: number | null }): void {
    const leafIndex = this.tree.size;
    if (Number(row.position) !== leafIndex) throw broken('leaf missing', `the tree has no leaf ${leafIndex} (next is ${row.position})`, { leafIndex });
    if (row.seq === null) throw broken('entry deleted', `the entry of leaf ${leafIndex} (seq ${String(row.entry_seq)}) is gone`, { leafIndex, seq: Number(row.entry_seq) });
    const entry = toChainedEntry(row as never);
    const at = { leafIndex, seq: Number(row.seq), id: String(row.id), lockId: String(row.lock_id) };
    let hash: string | null = null;
    try {
      if (entry !== null) hash = auditEntryHash(entry.previousHash ?? null, entry);
    } catch {
      hash = null;
    }
    if (hash === null || hash !== row.hash) throw broken('entry edited', `entry ${at.id} does not hash to its stored hash`, at);
    const expectedPrevious = this.lastHashOfLock.get(at.lockId) ?? GENESIS_HASH;
    if (row.prev_hash !== expectedPrevious) throw broken('chain broken', `entry ${at.id} does not follow its lock's previous entry`, at);
    this.lastHashOfLock.set(at.lockId, hash);
    this.tree.append(leafHash(Buffer.from(hash, 'hex')));
    if (this.wanted.has(this.tree.size)) this.roots.set(this.tree.size, this.tree.root());
  }
}

function checkAgainst(recomputed: Recomputation, checkpoint: SourcedCheckpoint): void {
  const root = recomputed.roots.get(checkpoint.size) ?? (checkpoint.size === 0 ? new Frontier().root() : undefined);
  if (root === undefined) throw broken('log truncated', `${checkpoint.source} signs ${checkpoint.size} entries; the log holds ${recomputed.tree.size}`, { checkpoint: checkpoint.note });
  if (!root.equals(checkpoint.root)) throw broken('checkpoint mismatch', `the first ${checkpoint.size} entries no longer hash to the root signed in ${checkpoint.source}: entries were changed, removed or inserted`, { checkpoint: checkpoint.note });
}

async function entryOutsideTree(db: Executor): Promise<{ seq: number; id: string; lock_id: string } | undefined> {
  return db
    .selectFrom('audit_entries as e')
    .leftJoin('audit_tree_nodes as n', 'n.entry_seq', 'e.seq')
    .select(['e.seq', 'e.id', 'e.lock_id'])
    .where('n.position', 'is', null)
    .orderBy('e.seq')
    .limit(1)
    .executeTakeFirst();
}

async function lockWithoutTrail(db: Executor): Promise<string | undefined> {
  const row = await db
    .selectFrom('locks as l')
    .select('l.id')
    .where('l.claimed_at', 'is not', null)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('audit_entries as a').select('a.seq').whereRef('a.lock_id', '=', 'l.id'))))
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

async function run(db: Executor, options: VerifyLogOptions): Promise<LogVerification> {
  // Checkpoints first, then the head: whatever is signed meanwhile is newer than the head read.
  const checkpoints = await databaseCheckpoints(db, options.verifier);
  for (const file of options.files ?? []) checkpoints.push(...(await fileCheckpoints(file, options.verifier)));
  const head = await db.selectFrom('audit_tree_head').select(['size', 'frontier']).where('id', '=', 1).executeTakeFirstOrThrow();
  const headSize = Number(head.size);
  const recomputed = new Recomputation(db, new Set(checkpoints.map((c) => c.size)), options.pageSize ?? 5000);
  await recomputed.extendTo(headSize);
  if (!Frontier.decode(headSize, head.frontier).root().equals(recomputed.tree.root())) throw broken('tree head mismatch', 'the stored tree head does not match the entries');
  // Smallest first: a change shows as the first signed root it breaks, before any truncation.
  for (const checkpoint of [...checkpoints].sort((a, b) => a.size - b.size)) checkAgainst(recomputed, checkpoint);
  const outside = await entryOutsideTree(db);
  if (outside) throw broken('entry outside the tree', `entry ${outside.id} is in no leaf of the tree: it was not recorded by the service`, { seq: outside.seq, id: outside.id, lockId: outside.lock_id });
  const orphan = await lockWithoutTrail(db);
  if (orphan) throw broken('lock without trail', `lock ${orphan} was claimed but has no audit entry: its trail was deleted`, { lockId: orphan });

  // Entries newer than the latest checkpoint: the service signs them within its interval.
  let latest = checkpoints.filter((c) => c.source.includes('database')).at(-1);
  const deadline = Date.now() + (options.waitForSignatureMs ?? 0);
  while ((latest?.size ?? 0) < recomputed.tree.size && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const newer = (await databaseCheckpoints(db, options.verifier)).at(-1);
    if (newer && newer.size > (latest?.size ?? 0)) {
      await recomputed.extendTo(newer.size);
      recomputed.roots.set(newer.size, recomputed.tree.root());
      checkAgainst(recomputed, newer);
      latest = newer;
    }
  }
  if ((latest?.size ?? 0) < recomputed.tree.size) {
    throw broken('unsigned entries', `entries ${latest?.size ?? 0} to ${recomputed.tree.size - 1} of the tree are covered by no signed checkpoint (appended behind the service's back, or the service is not running)`, { leafIndex: latest?.size ?? 0, checkpoint: latest?.note ?? null });
  }
  const locks = recomputed.lastHashOfLock.size;
  return { ok: true, entries: recomputed.tree.size, locks, treeSize: recomputed.tree.size, rootHash: recomputed.tree.root().toString('base64'), checkpoint: latest?.note ?? null };
}

export async function verifyAuditLog(db: Executor, options: VerifyLogOptions): Promise<LogVerification> {
  try {
    return await run(db, options);
  } catch (err) {
    if (err instanceof Broken) return err.result;
    throw err;
  }
}
