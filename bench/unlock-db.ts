// The database work of an unlock alone, on SQLite and on PostgreSQL in the same run (issue 33
// point 3): what src/operations/ does for POST /device/{id}/execute (the lock, membership and
// lockdown read, "begin": replay key and pending marker, consumeAndBegin as mutate-lock.ts
// calls it; "confirm": stored state and audit entry), the state report the lock sends after it
// and the one after its relock (src/lock-link/reports.ts: stored, audited DOOR_LOCK without a
// user, alarms derived), with the service's background work running (the webhook worker, told of
// each entry), for batches of unlocks of different doors started together, as a peak's event-loop
// turn delivers them. Prints per unlock, for each engine: this process's CPU, PostgreSQL's own CPU
// (its backends for this database and its WAL writer, from /proc), the time, PostgreSQL round trips (statements sent, BEGIN and COMMIT
// included) and commits (pg_stat_database); then PostgreSQL ÷ SQLite beside the goal (≤ 3 ×).
// With UNLOCK_DB_BENCH_STATEMENTS=1 also SQLite's time per statement run directly in a
// transaction (src/db/transaction.ts), per call. Not a test.
// Run: npm run bench -- unlock-db   Env: UNLOCK_DB_BENCH_GROUP=12 (unlocks per batch),
// UNLOCK_DB_BENCH_ROUND=2400 (unlocks per round, 3 rounds), UNLOCK_DB_BENCH_ENGINES=sqlite,postgres, LATCHKEY_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres)
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { register } from '../src/accounts/registration.js';
import type { AppContext } from '../src/context.js';
import { recordState } from '../src/lock-link/reports.js';
import { confirmCommand, pendingCommand } from '../src/locks/command-life.js';
import { provisionLock } from '../src/locks/provision.js';
import { readLockForOperation } from '../src/locks/queries.js';
import { consumeAndBegin } from '../src/operations/replay.js';
import type { VerifiedOperation } from '../src/operations/verify.js';
import { startBenchService } from './lib.js';
import { cpuSecondsOf } from './unlock-processes.js';
import { PG_ADMIN_URL, committedTransactions, createBenchDatabase } from './scale-lib.js';

const GROUP = Number(process.env.UNLOCK_DB_BENCH_GROUP ?? 12);
const ENGINES = (process.env.UNLOCK_DB_BENCH_ENGINES ?? 'sqlite,postgres').split(',');
const ROUND = Number(process.env.UNLOCK_DB_BENCH_ROUND ?? 2400);
const ROUNDS = 3;
const GOAL_RATIO = 3;

// Every statement kysely sends PostgreSQL goes through pg.Client#query: one round trip each.
let roundTrips = 0;
/** With UNLOCK_DB_BENCH_STATEMENTS: PostgreSQL statements sent, by their text. */
const sent = new Map<string, number>();
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
  roundTrips += 1;
  if (process.env.UNLOCK_DB_BENCH_STATEMENTS) {
    const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: unknown } | undefined)?.text);
    sent.set(text, (sent.get(text) ?? 0) + 1);
  }
  return query.apply(this, args);
};

/** PostgreSQL's processes doing this benchmark's work: the backends of database `name` and the WAL writer. */
async function postgresPids(name: string): Promise<number[]> {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1 OR backend_type = 'walwriter'", [name]);
    return rows.map((row) => row.pid);
  } finally {
    await admin.end();
  }
}

interface Figures { cpuUs: number; serverCpuUs: number; wallUs: number; roundTrips: number; commits: number }

interface Engine {
  name: string;
  /** Runs one measured round; answers its totals (not per unlock). */
  round(): Promise<Figures>;
  /** Prints the statement lists (UNLOCK_DB_BENCH_STATEMENTS) over `n` unlocks. */
  report(n: number): void;
  close(): Promise<void>;
}

/** A service on `engine` with its users and doors, warmed up, ready to run rounds. */
async function start(engine: string): Promise<Engine> {
  const database = engine === 'postgres' ? await createBenchDatabase() : null;
  const { service, close } = await startBenchService(database ? { DATABASE_URL: database.url } : {});
  const ctx = service.ctx as AppContext;
  const statements = new Map<string, { calls: number; nanos: bigint }>();
  const runNow = ctx.db.runNow;
  if (process.env.UNLOCK_DB_BENCH_STATEMENTS && runNow) {
    (ctx.db as { runNow: typeof runNow }).runNow = (sql, parameters) => {
      const started = process.hrtime.bigint();
      try {
        return runNow(sql, parameters);
      } finally {
        const entry = statements.get(sql) ?? { calls: 0, nanos: 0n };
        entry.calls++;
        entry.nanos += process.hrtime.bigint() - started;
        statements.set(sql, entry);
      }
    };
  }
  await register(ctx, { email: `bench-${Date.now()}@example.com`, password: 'correct horse battery', version: 3, force: false });
  const user = await ctx.db.kysely.selectFrom('users').select('id').executeTakeFirstOrThrow();
  // A door per unlock in flight: a peak's unlocks open different doors (one door's unlocks follow one another).
  const locks: Array<{ id: string }> = [];
  for (let i = 0; i < GROUP; i++) locks.push(await provisionLock(ctx.db.kysely, { name: `Bench door ${i}` }, ctx.now()));

  const unlock = async (lock: { id: string }): Promise<void> => {
    const now = ctx.now();
    // With the lockdown's responders, which an unlock checks.
    await readLockForOperation(ctx.db, lock.id, user.id);
    const commandId = randomUUID();
    const command = pendingCommand(lock.id, user.id, false, now, ctx.config.lockReplyTimeoutMs, commandId);
    // What the verified operation carries that "begin" reads.
    const op = { lock: { id: lock.id }, replayKey: randomUUID(), claims: { exp: now + 60 }, now, queued: undefined } as unknown as VerifiedOperation;
    await consumeAndBegin(ctx, op, command);
    await confirmCommand(ctx, command, { lockId: lock.id, type: 'DOOR_UNLOCK', actorUserId: user.id, details: { jti: commandId, commandId } });
    await recordState(ctx, lock.id, { locked: false, ts: now, battery: 80 });
    // The lock relocks by itself after its unlock time: a report nobody waits for, audited without a user.
    await recordState(ctx, lock.id, { locked: true, ts: now, battery: 80 });
  };
  const unlocks = async (count: number): Promise<void> => {
    for (let done = 0; done < count; done += GROUP) await Promise.all(locks.map(unlock));
  };

  await unlocks(ROUND / 4); // warm-up
  statements.clear();
  const pids = database ? await postgresPids(database.name) : [];
  const serverCpu = () => pids.reduce((sum, pid) => sum + (cpuSecondsOf(pid) || 0), 0);
  return {
    name: engine,
    async round() {
      const commitsBefore = database ? await committedTransactions(database.name) : 0;
      const tripsBefore = roundTrips;
      const cpuBefore = process.cpuUsage();
      const serverBefore = serverCpu();
      const started = performance.now();
      await unlocks(ROUND);
      const wallUs = (performance.now() - started) * 1000;
      const used = process.cpuUsage(cpuBefore);
      const trips = roundTrips - tripsBefore;
      return {
        cpuUs: used.user + used.system,
        serverCpuUs: (serverCpu() - serverBefore) * 1e6,
        wallUs,
        roundTrips: database ? trips : 0,
        // Less committedTransactions' own statement (and its commit) before the round.
        commits: database ? await committedTransactions(database.name) - commitsBefore - 1 : NaN,
      };
    },
    report(n) {
      for (const [sql, { calls, nanos }] of [...statements].sort((a, b) => Number(b[1].nanos - a[1].nanos))) {
        console.log(`${(Number(nanos) / calls / 1000).toFixed(2).padStart(7)} µs × ${(calls / n).toFixed(2)}  ${sql.slice(0, 100)}`);
      }
      if (database) for (const [text, calls] of [...sent].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${(calls / n).toFixed(2).padStart(7)} ×  ${text.replace(/\s+/g, ' ').slice(0, 150)}`);
    },
    async close() {
      await close();
      await database?.drop();
    },
  };
}

console.log(`\nAn unlock's database work (read, begin, confirm, the lock's state report, its relock's report), ${GROUP} unlocks at a time, ${ROUNDS} × ${ROUND}`);
// The engines' rounds interleaved (sqlite, postgres, sqlite, …): on a shared machine the load
// moves during a run, and measuring one engine after the other biased the ratio by it. Both
// services stay up meanwhile; the idle one's background work (timers) is counted in the other's
// process CPU, a small bias alike for both.
const engines: Engine[] = [];
const totals = new Map<string, Figures>();
try {
  for (const name of ENGINES) {
    try {
      engines.push(await start(name));
    } catch (err) {
      console.log(`${name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  sent.clear();
  for (let round = 0; round < ROUNDS; round++) {
    for (const engine of engines) {
      const figures = await engine.round();
      const total = totals.get(engine.name) ?? { cpuUs: 0, serverCpuUs: 0, wallUs: 0, roundTrips: 0, commits: 0 };
      for (const key of Object.keys(total) as Array<keyof Figures>) total[key] += figures[key];
      totals.set(engine.name, total);
    }
  }
  const n = ROUNDS * ROUND;
  for (const engine of engines) {
    engine.report(n);
    const total = totals.get(engine.name)!;
    for (const key of Object.keys(total) as Array<keyof Figures>) total[key] /= n;
    const server = engine.name === 'postgres' ? ` + PostgreSQL ${total.serverCpuUs.toFixed(0)} µs, ${total.roundTrips.toFixed(1)} round trips, ${total.commits.toFixed(2)} commits` : '';
    console.log(`${engine.name.padEnd(9)} CPU ${total.cpuUs.toFixed(0)} µs${server}; ${total.wallUs.toFixed(0)} µs of time per unlock (${(1e6 / total.wallUs).toFixed(0)} unlocks/s)`);
  }
} finally {
  for (const engine of engines) await engine.close();
}
const sqlite = totals.get('sqlite');
const postgres = totals.get('postgres');
if (sqlite && postgres) {
  const cpu = (postgres.cpuUs + postgres.serverCpuUs) / sqlite.cpuUs;
  console.log(`PostgreSQL ÷ SQLite, CPU per unlock (service + PostgreSQL's)   ${cpu.toFixed(1)} ×   goal ≤ ${GOAL_RATIO} ×`);
  console.log(`PostgreSQL ÷ SQLite, time per unlock                           ${(postgres.wallUs / sqlite.wallUs).toFixed(1)} ×   (none: printed beside)`);
}
process.exit(0);
