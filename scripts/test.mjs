// Runs the whole suite: every test file on SQLite, then every database-backed file (all but
// test/unit) on PostgreSQL. Ends with one line `N passed, N failed` over both runs.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out.sort();
}

const filter = process.argv.slice(2);
const all = findTests('test').filter((f) => filter.length === 0 || filter.some((p) => f.includes(p)));
const databases = (process.env.LATCHKEY_TEST_DATABASES ?? 'sqlite,postgres').split(',');

function run(database, files) {
  return new Promise((resolve) => {
    if (files.length === 0) return resolve({ passed: 0, failed: 0 });
    console.log(`\n### ${files.length} test files on ${database}\n`);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
      { env: { ...process.env, LATCHKEY_TEST_DB: database }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let passed = 0;
    let failed = 0;
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      for (const line of chunk.toString().split('\n')) {
        const m = /^ℹ (pass|fail) (\d+)/.exec(line.trim());
        if (m) (m[1] === 'pass' ? (passed = Number(m[2])) : (failed = Number(m[2])));
      }
    });
    // A runner that exits non-zero without reporting a failure (a crash, a file that failed to load) still fails.
    child.on('close', (code) => resolve({ passed, failed: code !== 0 && failed === 0 ? 1 : failed }));
  });
}

let passed = 0;
let failed = 0;
for (const database of databases) {
  const files = database === 'sqlite' ? all : all.filter((f) => !f.startsWith(join('test', 'unit')));
  const result = await run(database, files);
  passed += result.passed;
  failed += result.failed;
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
