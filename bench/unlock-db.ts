// The database work of an unlock alone, on SQLite: the two group commits of src/operations/mutate-lock.ts
// ("begin": replay key and pending marker; "confirm": stored state and audit entry) for batches of
// unlocks started together, as a peak's event-loop turn delivers them. Prints the process CPU per
// unlock for five rounds, and with UNLOCK_DB_BENCH_STATEMENTS=1 the time of each statement run
// directly in a transaction (src/db/transaction.ts), per call. Not a test.
// Run: node --import tsx bench/unlock-db.ts   Env: UNLOCK_DB_BENCH_GROUP=12 (unlocks per batch)
import { randomUUID } from 'node:crypto';
import { register } from '../src/accounts/registration.js';
import { inGroupCommit } from '../src/db/group-commit.js';
import { consumeReplayKey } from '../src/operations/replay.js';
import { beginCommand, confirmCommand, pendingCommand } from '../src/locks/command-life.js';
import { provisionLock } from '../src/locks/provision.js';
import { startBenchService } from './lib.js';

const GROUP = Number(process.env.UNLOCK_DB_BENCH_GROUP ?? 12);
const ROUND = 4800;
const { service, close } = await startBenchService();
const { ctx } = service;
const database = ctx.db;
if (database.dialect !== 'sqlite') throw new Error('SQLite only');

const statements = new Map<string, { calls: number; nanos: bigint }>();
if (process.env.UNLOCK_DB_BENCH_STATEMENTS && database.runNow) {
  const runNow = database.runNow;
  (database as { runNow: typeof runNow }).runNow = (sql, parameters) => {
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
const user = await database.kysely.selectFrom('users').select('id').executeTakeFirstOrThrow();
const lock = await provisionLock(database.kysely, { name: 'Bench door' }, ctx.now());

async function unlock(): Promise<void> {
  const now = ctx.now();
  const commandId = randomUUID();
  const command = pendingCommand(lock.id, user.id, false, now, ctx.config.lockReplyTimeoutMs, commandId);
  await inGroupCommit(database, ctx.logger, async (uow) => {
    await consumeReplayKey(uow.db, uow.dialect, { lockId: lock.id, replayKey: randomUUID(), expiresAt: now + 60, now });
    await beginCommand(uow, command);
  });
  await confirmCommand(ctx, command, { lockId: lock.id, type: 'DOOR_UNLOCK', actorUserId: user.id, details: { jti: commandId, commandId } });
}

async function unlocks(count: number): Promise<void> {
  for (let done = 0; done < count; done += GROUP) await Promise.all(Array.from({ length: GROUP }, unlock));
}

await unlocks(ROUND / 2); // warm-up
statements.clear();
const rounds: string[] = [];
for (let round = 0; round < 5; round++) {
  const before = process.cpuUsage();
  await unlocks(ROUND);
  const used = process.cpuUsage(before);
  rounds.push(((used.user + used.system) / ROUND).toFixed(1));
}
console.log(`CPU per unlock, ${GROUP} unlocks per commit: ${rounds.join(', ')} µs`);
for (const [sql, { calls, nanos }] of [...statements].sort((a, b) => Number(b[1].nanos - a[1].nanos))) {
  console.log(`${(Number(nanos) / calls / 1000).toFixed(2).padStart(7)} µs × ${(calls / (5 * ROUND)).toFixed(2)}  ${sql.slice(0, 100)}`);
}
await close();
