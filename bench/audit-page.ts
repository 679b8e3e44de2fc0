// The newest page of a lock's (and a user's) audit trail with 1,000 and with 1,000,000 entries
// in the table: the cost must not grow with the table. Then `audit verify` over the big trail.
// Entries are written with real chain hashes in the current format, with who acted (so the
// verify figure is real), straight through better-sqlite3 in one transaction for speed; the pages
// are read through the query functions the routes use. SQLite only. Usage: node --import tsx bench/audit-page.ts [--entries N]
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { GENESIS_HASH, auditEntryHash } from '../src/audit/chain.js';
import { lockLogPage, userLogPage } from '../src/audit/queries.js';
import { AUDIT_TYPES, V1_TYPES, auditMessage, hasSubject } from '../src/audit/types.js';
import { verifyAuditTrail } from '../src/audit/verify.js';
import { newId } from '../src/crypto/random.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrator.js';
import { percentile } from './lib.js';

interface Trail {
  db: Database;
  lockIds: string[];
  userIds: string[];
  /** The admin of lock i: one of the first `admins` users, each administering locks/admins locks. */
  adminOf: (lockIndex: number) => string;
  fillSeconds: number;
  close(): Promise<void>;
}

const { values } = parseArgs({ options: { entries: { type: 'string', default: '1000000' } } });
const BIG = Number(values.entries);
const RUNS = 200;

/** A trail of `entries` entries spread round-robin over `locks` locks, acted by `users` users (about the same entries per user at both sizes). */
async function buildTrail(entries: number, locks: number, users: number, admins: number): Promise<Trail> {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-bench-audit-'));
  const file = join(dir, 'audit.sqlite');
  const migrated = openDatabase({ kind: 'sqlite', file });
  await migrateToLatest(migrated);
  await migrated.close();
  const started = performance.now();
  const lockIds = Array.from({ length: locks }, () => newId());
  const userIds = Array.from({ length: users }, () => newId());
  const adminOf = (i: number) => userIds[i % admins]!;
  const raw = new SQLite(file);
  // A throwaway file: no journal, and a cache big enough that the random-key indexes stay in memory.
  raw.pragma('journal_mode = OFF');
  raw.pragma('synchronous = OFF');
  raw.pragma('cache_size = -400000');
  const insertUser = raw.prepare("INSERT INTO users (id, namespace, email, email_normalised, display_name, created, updated) VALUES (?, 'direct', ?, ?, ?, 0, 0)");
  const insertLock = raw.prepare("INSERT INTO locks (id, name, registration_key_hash, secret_hash, created, updated) VALUES (?, 'bench', ?, 'x', 0, 0)");
  const insertMember = raw.prepare("INSERT INTO lock_members (lock_id, user_id, role, created, updated) VALUES (?, ?, 'ADMIN', 0, 0)");
  const insertEntry = raw.prepare(
    'INSERT INTO audit_entries (id, lock_id, timestamp, type, actor_user_id, subject_user_id, actor_email, actor_display_name, subject_email, subject_display_name, rejected, message, details, prev_hash, hash, hash_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 2)',
  );
  raw.transaction(() => {
    userIds.forEach((id, i) => insertUser.run(id, `user${i}@example.com`, `user${i}@example.com`, `User ${i}`));
    lockIds.forEach((id, i) => {
      insertLock.run(id, id);
      insertMember.run(id, adminOf(i));
    });
    const last = new Map<string, string>();
    for (let i = 0; i < entries; i += 1) {
      const lockId = lockIds[i % locks]!;
      const type = AUDIT_TYPES[(i * 7) % AUDIT_TYPES.length]!;
      const rejected = i % 50 === 0;
      const actor = (i * 31) % users;
      const subject = hasSubject(type) ? (i * 17) % users : null;
      const fields = {
        version: 2 as const,
        lockId,
        timestamp: 1_700_000_000 + i * 0.25,
        type,
        actorUserId: userIds[actor]!,
        subjectUserId: subject === null ? null : userIds[subject]!,
        actorEmail: `user${actor}@example.com`,
        actorDisplayName: `User ${actor}`,
        subjectEmail: subject === null ? null : `user${subject}@example.com`,
        subjectDisplayName: subject === null ? null : `User ${subject}`,
        rejected,
        message: auditMessage(type, rejected),
        details: rejected ? { reason: 'outside permitted times' } : null,
      };
      const previous = last.get(lockId) ?? GENESIS_HASH;
      const hash = auditEntryHash(previous, fields);
      last.set(lockId, hash);
      const { actorUserId, subjectUserId, actorEmail, actorDisplayName, subjectEmail, subjectDisplayName, message } = fields;
      const details = fields.details && JSON.stringify(fields.details);
      insertEntry.run(randomUUID(), lockId, fields.timestamp, type, actorUserId, subjectUserId, actorEmail, actorDisplayName, subjectEmail, subjectDisplayName, rejected ? 1 : 0, message, details, previous, hash);
    }
  })();
  raw.pragma('optimize');
  raw.close();
  const fillSeconds = (performance.now() - started) / 1000;
  const db = openDatabase({ kind: 'sqlite', file });
  return { db, lockIds, userIds, adminOf, fillSeconds, close: async () => { await db.close(); await rm(dir, { recursive: true, force: true }); } };
}

interface Figures {
  p50: number;
  p99: number;
  /** Mean CPU time per call: on a shared machine the wall clock also measures the neighbours. */
  cpu: number;
  rows: number;
}

/** p50/p99 wall-clock milliseconds of `RUNS` calls of `query(i)` after a warm-up, their mean CPU time, and the rows of the last call. */
async function measure(query: (i: number) => Promise<unknown[]>): Promise<Figures> {
  for (let i = 0; i < 20; i += 1) await query(i);
  const times: number[] = [];
  let rows = 0;
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < RUNS; i += 1) {
    const started = performance.now();
    rows = (await query(i)).length;
    times.push(performance.now() - started);
  }
  const cpuUsed = process.cpuUsage(cpuStart);
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), cpu: (cpuUsed.user + cpuUsed.system) / 1000 / RUNS, rows };
}

function line(label: string, r: Figures): string {
  return `${label.padEnd(50)} p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   cpu ${r.cpu.toFixed(2).padStart(5)} ms   (${r.rows} rows)`;
}

async function pageFigures(trail: Trail) {
  const k = trail.db.kysely;
  const page = { limit: 100 };
  const lockAt = (i: number) => trail.lockIds[(i * 7919) % trail.lockIds.length]!;
  const userAt = (i: number) => trail.userIds[(i * 104729) % trail.userIds.length]!;
  return {
    lockV2: await measure((i) => lockLogPage(k, lockAt(i), page)),
    lockV1: await measure((i) => lockLogPage(k, lockAt(i), page, V1_TYPES)),
    lockWindow: await measure((i) => lockLogPage(k, lockAt(i), { ...page, start: 1_700_000_000, end: 1_700_000_000 + 0.25 * BIG })),
    user: await measure((i) => userLogPage(k, userAt(i), page)),
    userByAdmin: await measure((i) => {
      const lockIndex = (i * 7919) % trail.lockIds.length;
      return userLogPage(k, userAt(i), page, { adminId: trail.adminOf(lockIndex), now: Date.now() / 1000 });
    }),
  };
}

const small = await buildTrail(1_000, 10, 5, 5);
const smallFigures = await pageFigures(small);
await small.close();

console.log(`\n## audit pages (SQLite): building ${BIG.toLocaleString('en')} entries over 1,000 locks, 200 entries per user...`);
const big = await buildTrail(BIG, 1_000, Math.max(5, Math.round(BIG / 200)), 10);
console.log(`filled in ${big.fillSeconds.toFixed(1)} s (real chain hashes, one transaction)`);
const bigFigures = await pageFigures(big);

const labels: Record<keyof typeof smallFigures, string> = {
  lockV2: 'lock page, v2 (limit 100)',
  lockV1: 'lock page, v1 types only (limit 100)',
  lockWindow: 'lock page, start/end window (limit 100)',
  user: 'user page, own (limit 100)',
  userByAdmin: 'user page, seen by an admin (limit 100)',
};
for (const key of Object.keys(labels) as Array<keyof typeof labels>) {
  console.log(line(`${labels[key]}, 1,000 entries`, smallFigures[key]));
  console.log(line(`${labels[key]}, ${BIG.toLocaleString('en')} entries`, bigFigures[key]));
}

const heapBefore = process.memoryUsage().heapUsed;
const started = performance.now();
const cpuStarted = process.cpuUsage();
const verified = await verifyAuditTrail(big.db.kysely);
const seconds = (performance.now() - started) / 1000;
const cpuUsed = process.cpuUsage(cpuStarted);
const cpuSeconds = (cpuUsed.user + cpuUsed.system) / 1e6;
console.log(`audit verify over ${BIG.toLocaleString('en')} entries: ${JSON.stringify(verified)} in ${seconds.toFixed(1)} s wall, ${cpuSeconds.toFixed(1)} s CPU (${Math.round(BIG / seconds).toLocaleString('en')} entries/s)`);
console.log(`heap before/after verify: ${Math.round(heapBefore / 1e6)} / ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB`);
await big.close();
