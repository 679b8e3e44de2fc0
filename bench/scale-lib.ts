// Shared by the scale-out benchmarks: a throwaway PostgreSQL database, Redis command counts,
// PostgreSQL transaction counts, a service's CPU time, and instances in processes of their own.
import { fork, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { redisServerInstalled, startPrivateRedis } from '../test/helpers/redis-server.js';

export const PG_ADMIN_URL = process.env.LATCHKEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The benchmark's Redis: LATCHKEY_TEST_REDIS_URL when set, else a private redis-server (so that
 * its command counts are the benchmark's alone on a machine shared with other work), else the
 * one at 127.0.0.1:6379.
 */
export async function startBenchRedis(): Promise<{ url: string; private: boolean; stop(): Promise<void> }> {
  const given = process.env.LATCHKEY_TEST_REDIS_URL;
  if (given || !redisServerInstalled) return { url: given ?? 'redis://127.0.0.1:6379', private: false, stop: async () => undefined };
  const redis = await startPrivateRedis();
  return { url: redis.url, private: true, stop: () => redis.stop() };
}

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

/** Commands Redis has processed so far (all clients; the benchmark is its only busy one on a private Redis). */
export async function redisCommands(url: string): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true });
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

/**
 * What Linux says of a process (`/proc`): user and system CPU seconds (every thread), and its main
 * thread's context switches: voluntary (it waited: each is an event-loop wake-up to come) and
 * involuntary (preempted while it could run: what the other processes on the cores cost it).
 * Null off Linux.
 */
export interface ProcessCounters { user: number; system: number; waits: number; preempted: number }

export async function processCounters(pid: number): Promise<ProcessCounters | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // After the command name (in parentheses, which may hold spaces): utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = 100; // USER_HZ on every Linux this runs on
    const status = await readFile(`/proc/${pid}/task/${pid}/status`, 'utf8');
    const count = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { user: Number(fields[11]) / ticks, system: Number(fields[12]) / ticks, waits: count('voluntary_ctxt_switches'), preempted: count('nonvoluntary_ctxt_switches') };
  } catch {
    return null;
  }
}

/** Milliseconds in V8's garbage collector: scavenges (minor), the rest (major), and how many of the latter. */
export interface GcTime { minorMs: number; majorMs: number; majors: number }

/** A service instance in a process of its own (bench/scale-instance.ts). */
export interface Instance {
  child: ChildProcess;
  url: string;
  rootCertificate: string;
  /** Its CPU seconds so far. */
  cpu(): Promise<number>;
  /** Its time in the garbage collector so far (bench/scale-instance.ts). */
  gc(): Promise<GcTime>;
  /** Starts a CPU profile (inspector) of the instance; `stopProfile` writes it to `file`. */
  startProfile(): Promise<void>;
  stopProfile(file: string): Promise<void>;
  stop(): Promise<void>;
}

/** Forks an instance with `env` as configuration overrides; resolves once it listens. */
export function startInstance(env: Record<string, string>): Promise<Instance> {
  // SCALE_BENCH_PROFILE=DIR: each instance writes a CPU profile there when it stops (bench/profile-summary.ts reads it).
  const profile = process.env.SCALE_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SCALE_BENCH_PROFILE}`] : [];
  // SCALE_BENCH_NODE_FLAGS: more options for each instance's node (V8's too, e.g. --no-memory-reducer), space-separated.
  const flags = (process.env.SCALE_BENCH_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');
  const child = fork(new URL('scale-instance.ts', import.meta.url).pathname, [JSON.stringify(env)], { execArgv: ['--import', 'tsx', ...profile, ...flags] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`instance exited (${code}) before listening`)));
    child.once('message', (message: { url: string; rootCertificate: string }) => {
      resolve({
        child,
        url: message.url,
        rootCertificate: message.rootCertificate,
        cpu: () => new Promise((answer) => {
          child.once('message', (reply: { cpu: number }) => answer(reply.cpu));
          child.send('cpu');
        }),
        gc: () => new Promise((answer) => {
          child.once('message', (reply: { gc: GcTime }) => answer(reply.gc));
          child.send('cpu');
        }),
        startProfile: () => new Promise((answer) => {
          child.once('message', () => answer());
          child.send({ profile: 'start' });
        }),
        stopProfile: (file) => new Promise((answer) => {
          child.once('message', () => answer());
          child.send({ profile: 'stop', file });
        }),
        async stop() {
          if (child.connected) child.send('stop');
          await exited;
        },
      });
    });
  });
}
