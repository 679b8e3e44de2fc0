// One service instance in a process of its own for bench/scale-out.ts (not a benchmark by itself).
// Its first IPC message is { url, rootCertificate }; then it answers 'cpu' with its CPU seconds so
// far (and its time in the garbage collector), { profile: 'start' } and { profile: 'stop', file } (a CPU profile of what it did in
// between, written to `file`: bench/profile-summary.ts reads it) with {}, and 'stop'.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { startBenchService } from './lib.js';

const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const { service, close } = await startBenchService(env);
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
/** Time in V8's garbage collector so far (ms): scavenges of the young generation, and the rest (mark-compact, incremental marking, weak callbacks), with their count. */
const gc = { minorMs: 0, majorMs: 0, majors: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.minorMs += entry.duration;
    else {
      gc.majorMs += entry.duration;
      gc.majors += 1;
    }
  }
}).observe({ entryTypes: ['gc'] });
let inspector: Session | null = null;
async function profile(request: { profile: 'start' | 'stop'; file?: string }): Promise<void> {
  if (request.profile === 'start') {
    inspector = new Session();
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.start');
  } else if (inspector !== null) {
    const { profile } = await inspector.post('Profiler.stop');
    inspector.disconnect();
    inspector = null;
    await writeFile(request.file!, JSON.stringify(profile));
  }
  process.send!({});
}
process.on('message', (request: string | { profile: 'start' | 'stop'; file?: string }) => {
  if (request === 'cpu') process.send!({ cpu: cpu(), gc });
  if (request === 'stop') void close().finally(() => process.exit(0));
  if (typeof request === 'object' && 'profile' in request) void profile(request);
});
process.on('disconnect', () => void close().finally(() => process.exit(0)));
process.send!({ url: service.url, rootCertificate: service.ctx.pki.rootCertificate });
