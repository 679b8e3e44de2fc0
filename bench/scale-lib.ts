// Shared by the scale-out benchmarks: a throwaway PostgreSQL database, Redis command counts,
// PostgreSQL transaction counts, and a service's CPU time.
import { Redis } from 'ioredis';
import pg from 'pg';

export const PG_ADMIN_URL = process.env.LATCHKEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.LATCHKEY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh PostgreSQL database: its DATABASE_URL, its name and how to drop it. */
export async function createBenchDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `latchkey_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined) };
}

/** Transactions committed in database `name` so far (statistics lag up to half a second). */
export async function committedTransactions(name: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 600));
  return admin(async (client) => {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query<{ n: string }>('SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = $1', [name]);
    return Number(rows[0]?.n ?? 0);
  });
}

/** Commands Redis has processed so far (all clients; the benchmark is its only busy one). */
export async function redisCommands(): Promise<number> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true });
  try {
    await redis.connect();
    const info = await redis.info('stats');
    return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0) - 1;
  } finally {
    redis.disconnect();
  }
}

/** CPU seconds (user + system) this process has used: the services here run in it. */
export function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}
