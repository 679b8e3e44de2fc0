// The audit log's Merkle tree at 10⁶ entries (issue 18): latest checkpoint read, inclusion and
// consistency proof reads (median and p99 over 2000 reads, through Kysely as the routes do), the
// cost the tree adds to recording one entry, and `audit verify` over the whole log. The entries
// are written straight into a SQLite file (valid chain hashes, tree nodes, one signed checkpoint).
// Not a test. Run: node --import tsx bench/audit-tree.ts   Env: AUDIT_BENCH_ENTRIES (default 1e6).
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { auditEntryHash, GENESIS_HASH } from '../src/audit/chain.js';
import { Frontier } from '../src/audit/merkle.js';
import { parseVerifierKey, signCheckpoint, verifierKey } from '../src/audit/note.js';
import { latestCheckpoint } from '../src/audit/proofs.js';
import { appendLeaf, consistencyProof, entryLeafHash, inclusionProof, lockTreeHead, nodePosition } from '../src/audit/tree.js';
import { verifyAuditLog } from '../src/audit/verify-log.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { percentile } from './lib.js';

const ENTRIES = Number(process.env.AUDIT_BENCH_ENTRIES ?? 1_000_000);
const LOCKS = 1000;
const dir = await mkdtemp(join(tmpdir(), 'latchkey-bench-audit-tree-'));
const file = join(dir, 'bench.sqlite');
const database = openDatabase({ kind: 'sqlite', file });
await migrateToLatest(database);

// Bulk load: entries with real chain hashes, every tree node, the head.
const loadStarted = performance.now();
const raw = new SQLite(file);
raw.pragma('journal_mode = WAL');
const insertEntry = raw.prepare(
  'insert into audit_entries (seq, id, lock_id, timestamp, type, actor_user_id, subject_user_id, actor_email, actor_display_name, rejected, message, details, prev_hash, hash, hash_version) values (?, ?, ?, ?, ?, ?, null, ?, ?, 0, ?, null, ?, ?, 2)',
);
const insertNode = raw.prepare('insert into audit_tree_nodes (position, hash, entry_seq) values (?, ?, ?)');
const tree = new Frontier();
const lastOfLock = new Map<number, string>();
raw.transaction(() => {
  for (let i = 0; i < ENTRIES; i++) {
    const lock = i % LOCKS;
    const lockId = `0190a0a0-0000-7000-8000-${String(lock).padStart(12, '0')}`;
    const fields = {
      version: 2 as const, lockId, timestamp: 1_700_000_000 + i / 100, type: 'DOOR_UNLOCK', actorUserId: 'u', subjectUserId: null,
      actorEmail: 'u@example.com', actorDisplayName: 'U', subjectEmail: null, subjectDisplayName: null, rejected: false, message: 'lock unlocked', details: null,
    };
    const previous = lastOfLock.get(lock) ?? GENESIS_HASH;
    const hash = auditEntryHash(previous, fields);
    lastOfLock.set(lock, hash);
    insertEntry.run(i + 1, `e-${i}`, lockId, fields.timestamp, fields.type, fields.actorUserId, fields.actorEmail, fields.actorDisplayName, fields.message, previous, hash);
    for (const [level, index, node] of tree.append(entryLeafHash(hash))) insertNode.run(nodePosition(level, index), node, level === 0 ? i + 1 : null);
  }
  raw.prepare('update audit_tree_head set size = ?, frontier = ? where id = 1').run(tree.size, tree.encode());
})();
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const publicRaw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
const origin = 'bench.example/audit';
const note = signCheckpoint({ origin, size: tree.size, root: tree.root() }, origin, privateKey, publicRaw);
raw.prepare('insert into audit_checkpoints (tree_size, root_hash, note, signed_at) values (?, ?, ?, ?)').run(tree.size, tree.root(), note, Date.now() / 1000);
raw.close();
const loadSeconds = (performance.now() - loadStarted) / 1000;

async function timed(iterations: number, run: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 200; i++) await run(i);
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await run(i);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}
const ms = (sorted: number[]) => `median ${percentile(sorted, 50).toFixed(3)} ms   p99 ${percentile(sorted, 99).toFixed(3)} ms`;
const db = database.kysely;
const random = (n: number) => Math.floor(Math.random() * n);

const checkpointReads = await timed(2000, () => latestCheckpoint(db));
const inclusionReads = await timed(2000, () => inclusionProof(db, random(ENTRIES), ENTRIES));
const consistencyReads = await timed(2000, () => consistencyProof(db, 1 + random(ENTRIES - 1), ENTRIES));

// CPU time as well as wall time: on a shared machine the wall clock mostly measures the neighbours.
const verifyStarted = performance.now();
const verifyCpu = process.cpuUsage();
const verified = await verifyAuditLog(db, { verifier: parseVerifierKey(verifierKey(origin, publicRaw)) });
const verifySeconds = (performance.now() - verifyStarted) / 1000;
const verifyCpuUsed = process.cpuUsage(verifyCpu);
const verifyCpuSeconds = (verifyCpuUsed.user + verifyCpuUsed.system) / 1e6;


// What the tree adds to recording an entry: the head read, the node inserts, the head update.
let nextSeq = ENTRIES + 1;
const appends = await timed(2000, () =>
  db.transaction().execute(async (tx) => {
    const head = await lockTreeHead(tx, 'sqlite');
    await appendLeaf(tx, 'sqlite', head, { seq: nextSeq++, hash: 'ab'.repeat(32) });
  }),
);
const emptyTransactions = await timed(2000, () => db.transaction().execute(async () => undefined));

console.log(`audit Merkle tree at ${ENTRIES.toLocaleString('en')} entries (SQLite; bulk load ${loadSeconds.toFixed(1)} s)`);
console.log(`  latest checkpoint read:  ${ms(checkpointReads)}   (target ≤ 1 ms)`);
console.log(`  inclusion proof read:    ${ms(inclusionReads)}   (target ≤ 1 ms)`);
console.log(`  consistency proof read:  ${ms(consistencyReads)}`);
console.log(`  tree append per entry:   ${(percentile(appends, 50) - percentile(emptyTransactions, 50)).toFixed(3)} ms median over an empty transaction (${ms(appends)} with it)`);
console.log(`  audit verify, whole log: ${verifySeconds.toFixed(1)} s wall, ${verifyCpuSeconds.toFixed(1)} s CPU   ${verified.ok ? 'ok' : `NOT ok: ${JSON.stringify(verified)}`}   (target ≤ 30 s)`);
await database.close();
await rm(dir, { recursive: true, force: true });
