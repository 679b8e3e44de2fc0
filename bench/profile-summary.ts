// Summarises a V8 CPU profile (.cpuprofile, from `node --cpu-prof` or UNLOCK_BENCH_PROFILE):
// self time by area (our feature folders, each dependency, node internals, native code, GC,
// idle) and the hottest functions, as shares of the busy time. Not a benchmark.
// Run: node --import tsx bench/profile-summary.ts FILE [TOP]
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a function lives: `src/operations`, `kysely`, `node:internal`, `(garbage collector)`… */
function areaOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1]!;
  if (url.startsWith('node:')) return url.startsWith('node:internal') ? `node:${url.split('/')[1] ?? 'internal'}` : url;
  const ours = /\/(src|bench)\/(.+)\/[^/]+$/.exec(url) ?? /\/(src|bench)\/([^/]+)$/.exec(url);
  return ours ? `${ours[1]}/${ours[2]!.split('/')[0]}` : url;
}

function functionOf(frame: ProfileNode['callFrame']): string {
  const file = frame.url.replace(/^.*\/(node_modules|src|bench)\//, '$1/').replace(/^file:\/\//, '');
  return `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : ''}`.trim();
}

function addTo(totals: Map<string, number>, key: string, micros: number): void {
  totals.set(key, (totals.get(key) ?? 0) + micros);
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: bench/profile-summary.ts FILE [TOP]');
const top = Number(topArg ?? 25);
const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const byArea = new Map<string, number>();
const byFunction = new Map<string, number>();
let idle = 0;
let total = 0;
profile.samples.forEach((id, index) => {
  const micros = profile.timeDeltas[index] ?? 0;
  const frame = nodes.get(id)!.callFrame;
  total += micros;
  if (frame.functionName === '(idle)') {
    idle += micros;
    return;
  }
  addTo(byArea, areaOf(frame), micros);
  addTo(byFunction, functionOf(frame), micros);
});

const busy = total - idle;
const share = (micros: number) => `${((100 * micros) / busy).toFixed(1).padStart(5)} %`;
const sorted = (totals: Map<string, number>) => [...totals].sort((a, b) => b[1] - a[1]).slice(0, top);
console.log(`${(total / 1e6).toFixed(2)} s profiled, ${((100 * idle) / total).toFixed(1)} % idle; shares below are of the busy ${(busy / 1e6).toFixed(2)} s`);
console.log('\nself time by area');
for (const [area, micros] of sorted(byArea)) console.log(`  ${share(micros)}  ${area}`);
console.log('\nhottest functions (self time)');
for (const [name, micros] of sorted(byFunction)) console.log(`  ${share(micros)}  ${name}`);
