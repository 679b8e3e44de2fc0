// One service instance in a process of its own for bench/scale-out.ts (not a benchmark by itself).
// Its first IPC message is { url, rootCertificate }; then it answers 'cpu' with its CPU seconds so
// far, and 'stop'.
import { startBenchService } from './lib.js';

const env = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const { service, close } = await startBenchService(env);
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
process.on('message', (request: string) => {
  if (request === 'cpu') process.send!({ cpu: cpu() });
  if (request === 'stop') void close().finally(() => process.exit(0));
});
process.on('disconnect', () => void close().finally(() => process.exit(0)));
process.send!({ url: service.url, rootCertificate: service.ctx.pki.rootCertificate });
