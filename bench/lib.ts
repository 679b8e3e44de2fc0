import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { startService, type RunningService } from '../src/server.js';

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

const require = createRequire(import.meta.url);

/** Loads `url` with autocannon in a separate process (so it does not share the server's core). */
export function autocannon(url: string, options: { headers?: Record<string, string>; connections?: number; seconds?: number; method?: string; body?: string } = {}): Promise<LoadResult> {
  const bin = require.resolve('autocannon/autocannon.js');
  const args = [bin, '-j', '-c', String(options.connections ?? 10), '-d', String(options.seconds ?? 5)];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (options.method) args.push('-m', options.method);
  if (options.body) args.push('-b', options.body);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}`));
      const r = JSON.parse(out) as { requests: { average: number }; latency: { p50: number; p99: number }; errors: number; non2xx: number };
      resolve({ requestsPerSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx });
    });
  });
}

/** The real service on SQLite in a temporary directory, as `latchkey serve` would run it. */
export async function startBenchService(env: Record<string, string> = {}): Promise<{ service: RunningService; close(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'latchkey-bench-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, MQTT_PORT: '0', LOG_LEVEL: 'warn', RATE_REQUESTS_PER_CALLER: '100000000', RATE_AUTH_PER_IP: '1000000', RATE_EXECUTE_PER_USER: '100000000', RATE_EXECUTE_PER_LOCK: '100000000', ...env }, process.cwd());
  const service = await startService(config);
  return {
    service,
    async close() {
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function row(label: string, r: LoadResult): string {
  return `${label.padEnd(42)} ${r.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${String(r.p50).padStart(4)} ms   p99 ${String(r.p99).padStart(4)} ms   errors ${r.errors + r.non2xx}`;
}

/**
 * One core's Ed25519 verifications a second (node:crypto, a 300-byte message, for about a second):
 * the unit the unlock targets are given in, measured in the same run as the figures it judges.
 * Counted against this process's CPU time, not the clock, as the services' CPU per request is:
 * on a shared machine the wall clock also counts the time this process waited for a core.
 */
export function ed25519VerificationsPerSecond(): number {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const data = Buffer.from('x'.repeat(300));
  const signature = sign(null, data, privateKey);
  let count = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  while (performance.now() - start < 1000) {
    for (let i = 0; i < 100; i++) verify(null, data, publicKey, signature);
    count += 100;
  }
  const used = process.cpuUsage(cpu);
  return count / ((used.user + used.system) / 1e6);
}
