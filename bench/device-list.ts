// GET /device for a user enrolled on 1,000 locks, first with few other locks in the database,
// then with ~100,000: the list is driven by the member index, so the two should match.
// Rows are inserted directly (batched); the request goes over HTTP with autocannon.
import { sql } from 'kysely';
import { newId, newSecretCode, sha256Hex } from '../src/crypto/random.js';
import type { Executor } from '../src/db/transaction.js';
import { autocannon, row, startBenchService } from './lib.js';

const USER_LOCKS = 1_000;
const TOTAL_LOCKS = 100_000;
const BATCH = 500;
const SECONDS = 8;

const bench = await startBenchService();
try {
  const { url, ctx } = { url: bench.service.url, ctx: bench.service.ctx };
  const db = ctx.db.kysely;
  const registered = await fetch(`${url}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench-locks@example.com', password: 'bench password', displayName: 'Bench' }),
  });
  const { authToken } = (await registered.json()) as { authToken: string };
  const userId = JSON.parse(Buffer.from(authToken.split('.')[1]!, 'base64url').toString()).sub as string;
  const other = await insertUser(db, 'bench-other@example.com');
  const siteId = newId();
  const now = Date.now() / 1000;
  await db.insertInto('sites').values({ id: siteId, name: 'Bench site', logo_url: null, colour: '#123456', latitude: null, longitude: null, radius: null, created: now, updated: now }).execute();

  /** `count` locks, each with one member (`memberOf(i)`), in batched transactions. */
  async function addLocks(count: number, memberOf: (i: number) => string, role: 'ADMIN' | 'USER'): Promise<void> {
    for (let done = 0; done < count; done += BATCH) {
      const size = Math.min(BATCH, count - done);
      const locks = Array.from({ length: size }, (_, i) => ({
        id: newId(),
        name: `Lock ${done + i}`,
        site_id: (done + i) % 3 === 0 ? siteId : null,
        registration_key_hash: sha256Hex(newSecretCode()),
        secret_hash: sha256Hex(newSecretCode()),
        owner_user_id: memberOf(done + i),
        claimed_at: now,
        default_name: `Door ${done + i}`,
        unlock_between: null,
        permitted_addresses: (done + i) % 5 === 0 ? '["203.0.113.0/24"]' : '[]',
        usage_requirements: (done + i) % 7 === 0 ? '{"time":[{"start":"08:00","end":"18:00","timezone":"Europe/London","days":["MONDAY","TUESDAY"]}]}' : '{}',
        locked: 1 as const,
        door_open: null,
        connected: ((done + i) % 2) as 0 | 1,
        last_operation: now,
        created: now,
        updated: now,
      }));
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('locks').values(locks).execute();
        await tx.insertInto('lock_members').values(locks.map((l, i) => ({ lock_id: l.id, user_id: memberOf(done + i), role, starts_at: null, ends_at: null, alias: null, colour: null, created: now, updated: now }))).execute();
        const tiles = locks.filter((_, i) => (done + i) % 10 === 0).map((l) => ({ id: newId(), lock_id: l.id }));
        await tx.insertInto('tiles').values(tiles.map((tile) => ({ id: tile.id, lock_id: null, created: now, updated: now }))).execute();
        await tx.insertInto('tile_locks').values(tiles.map((tile) => ({ tile_id: tile.id, lock_id: tile.lock_id, created: now }))).execute();
      });
    }
  }

  const headers = { authorization: `Bearer ${authToken}` };
  async function measure(label: string) {
    const first = await fetch(`${url}/device`, { headers });
    const body = (await first.json()) as unknown[];
    if (first.status !== 200 || body.length !== USER_LOCKS) throw new Error(`unexpected answer: ${first.status}, ${body.length} locks`);
    const bytes = Number(first.headers.get('content-length') ?? 0) || JSON.stringify(body).length;
    const total = await db.selectFrom('locks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    await autocannon(`${url}/device`, { headers, seconds: 2 }); // warm-up
    // The server runs in this process, so its CPU time per request holds even on a busy machine.
    const cpuBefore = process.cpuUsage();
    const result = await autocannon(`${url}/device`, { headers, connections: 4, seconds: SECONDS });
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMsPerRequest = (cpu.user + cpu.system) / 1000 / Math.max(1, result.requestsPerSecond * SECONDS);
    console.log(row(`${label} (${total.n} locks in db)`, result), `  ${(bytes / 1024).toFixed(0)} KiB/response   ${cpuMsPerRequest.toFixed(1)} ms CPU/request`);
    return result;
  }

  await addLocks(USER_LOCKS, () => userId, 'ADMIN');
  await addLocks(USER_LOCKS, () => other, 'ADMIN');
  console.log(`\n## GET /device, a user with ${USER_LOCKS} locks (SQLite, 4 connections, ${SECONDS} s)`);
  const small = await measure('GET /device');

  const started = Date.now();
  const fillers = await Promise.all(Array.from({ length: 50 }, (_, i) => insertUser(db, `filler-${i}@example.com`)));
  await addLocks(TOTAL_LOCKS - 2 * USER_LOCKS, (i) => fillers[i % fillers.length]!, 'ADMIN');
  console.log(`(inserted ${TOTAL_LOCKS - 2 * USER_LOCKS} more locks with members and tiles in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const large = await measure('GET /device');
  console.log(`ratio (100k db / small db): ${(large.requestsPerSecond / small.requestsPerSecond).toFixed(2)}  (target ~1.0: cost independent of database size)`);

  const plan = await sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT locks.id FROM lock_members INNER JOIN locks ON locks.id = lock_members.lock_id LEFT JOIN sites ON sites.id = locks.site_id WHERE lock_members.user_id = ${userId} ORDER BY lock_members.lock_id`.execute(db);
  console.log('query plan:', plan.rows.map((r) => r.detail).join(' | '));
} finally {
  await bench.close();
}

async function insertUser(db: Executor, email: string): Promise<string> {
  const id = newId();
  const now = Date.now() / 1000;
  await db
    .insertInto('users')
    .values({ id, namespace: 'direct', external_id: null, email, email_normalised: email, email_verified: 1, telephone: null, telephone_verified: 0, display_name: null, password_hash: null, public_key: null, private_key_sealed: null, orphan: 0, created: now, updated: now })
    .execute();
  return id;
}
