// The service of bench/unlock.ts in a process of its own, as it runs in production: the real
// service on SQLite in a temporary directory with the embedded broker (bench/lib.ts). Forked with
// an IPC channel; its first message announces { url, mqttPort, rootCertificate }. The parent can
// then ask it to provision a lock (the product does that from the CLI, not over HTTP), to record
// a CPU profile of a stretch of the run, and to stop. Not a benchmark by itself.
// Run by bench/unlock.ts: fork('bench/unlock-service.ts', [JSON env overrides], { execArgv: ['--import', 'tsx'] })
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Session } from 'node:inspector/promises';
import { provisionLock } from '../src/locks/provision.js';
import { startBenchService } from './lib.js';

export type ServiceRequest =
  | { type: 'provision'; name: string }
  | { type: 'profile-start' }
  | { type: 'profile-stop'; file: string }
  | { type: 'online' }
  | { type: 'memory' }
  | { type: 'stop' };

export type ServiceMessage =
  | { type: 'ready'; url: string; mqttPort: number; rootCertificate: string; loadedMs: number; startedMs: number }
  | { type: 'provisioned'; id: string; secret: string; registrationKey: string }
  | { type: 'profiling' }
  | { type: 'profiled'; file: string }
  | { type: 'online'; locks: number; online: number }
  | { type: 'memory'; rssMiB: number; heapUsedMiB: number; externalMiB: number }
  | { type: 'failed'; message: string };

const send = (message: ServiceMessage): void => void process.send!(message);
const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
// Module loading (through tsx here; the built service loads faster) and the service's own start, apart.
const loadedMs = performance.now();
const { service, close } = await startBenchService(env);
const startedMs = performance.now() - loadedMs;
const { ctx } = service;
const profiler = new Session();

async function answer(request: ServiceRequest): Promise<void> {
  switch (request.type) {
    case 'provision': {
      const lock = await provisionLock(ctx.db.kysely, { name: request.name }, ctx.now());
      return send({ type: 'provisioned', id: lock.id, secret: lock.secret, registrationKey: lock.registrationKey });
    }
    case 'profile-start':
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
      await profiler.post('Profiler.start');
      return send({ type: 'profiling' });
    case 'profile-stop': {
      const { profile } = await profiler.post('Profiler.stop');
      profiler.disconnect();
      await mkdir(dirname(request.file), { recursive: true });
      await writeFile(request.file, JSON.stringify(profile));
      return send({ type: 'profiled', file: request.file });
    }
    case 'online': {
      // Every lock the service knows, and how many of them it holds online (bench/fleet.ts), asked
      // every 200 ms through the storm: a count, not the fleet's rows (reading 19,000 ids and
      // looking each up took ≈ 4 % of the service's CPU in the storm's profile).
      const { count } = await ctx.db.kysely.selectFrom('locks').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
      return send({ type: 'online', locks: Number(count), online: ctx.link.brokerStatus().locksOnline });
    }
    case 'memory': {
      // After a full collection when the process allows it (--expose-gc): what is held, not garbage not yet collected.
      (globalThis as { gc?: () => void }).gc?.();
      const { rss, heapUsed, external } = process.memoryUsage();
      return send({ type: 'memory', rssMiB: rss / 2 ** 20, heapUsedMiB: heapUsed / 2 ** 20, externalMiB: external / 2 ** 20 });
    }
    case 'stop':
      await close();
      process.exit(0);
  }
}

process.on('message', (request: ServiceRequest) => {
  answer(request).catch((err: unknown) => send({ type: 'failed', message: err instanceof Error ? err.message : String(err) }));
});
// The parent went away without asking: do not linger.
process.on('disconnect', () => void close().finally(() => process.exit(0)));
send({ type: 'ready', url: service.url, mqttPort: ctx.broker!.port, rootCertificate: ctx.pki.rootCertificate, loadedMs, startedMs });
