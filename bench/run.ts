// `npm run bench`: every benchmark in turn, each in its own process; each prints its figures.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const only = process.argv.slice(2);
const benches = ['account.ts', 'scale-out-account.ts', 'scale-out.ts', 'scale-out-cluster.ts', 'device-list.ts', 'audit-page.ts', 'link-roundtrip.ts', 'sse-fanout.ts', 'unlock.ts', 'audit-tree.ts', 'config-republish.ts', 'bridge.ts', 'bridge-scale.ts', 'webhooks.ts', 'fleet.ts', 'unlock-db.ts'];
for (const name of benches) {
  if (only.length > 0 && !only.some((o) => name.includes(o))) continue;
  const file = new URL(name, import.meta.url).pathname;
  if (!existsSync(file)) continue;
  const result = spawnSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit' });
  if (result.status !== 0) console.log(`(${name} exited ${result.status})`);
}
