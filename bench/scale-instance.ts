// One service instance in a process of its own for bench/scale-out.ts (not a benchmark by itself).
// Its first IPC message is { url, rootCertificate }; then it answers 'cpu' with its CPU seconds so
// far, { profile: 'start' } and { profile: 'stop', file } (a CPU profile of what it did in
// between, written to `file`: bench/profile-summary.ts reads it) with {}, and 'stop'.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { startBenchService } from './lib.js';

const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const { service, close } = await startBenchService(env);
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
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
  if (request === 'cpu') process.send!({ cpu: cpu() });
  if (request === 'stop') void close().finally(() => process.exit(0));
  if (typeof request === 'object' && 'profile' in request) void profile(request);
});
process.on('disconnect', () => void close().finally(() => process.exit(0)));
process.send!({ url: service.url, rootCertificate: service.ctx.pki.rootCertificate });
