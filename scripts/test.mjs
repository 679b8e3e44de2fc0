// Runs the whole suite: every test file on SQLite and every database-backed file (all but the
// `*.unit.test.ts` ones) on PostgreSQL, in one runner. Ends with one line `N passed, N failed`.
//
//   node scripts/test.mjs [FILTER …]   only files whose path contains one of the filters
//
// A filter that matches no file is an error, so a typo never passes as "0 failed". Without a
// reachable PostgreSQL the second pass is skipped with a line saying so, except under CI=true,
// where a missing PostgreSQL fails the run.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What an interrupt must stop and clean up: the child running now (the template maker or the
 * `node --test` runner, each in a process group of its own), the batch folder, the PostgreSQL
 * template. Registered before anything is made, so an interrupt at any point leaves nothing behind.
 */
const live = { child: null, dir: null, pgTemplate: null, templateMakerPid: null, cleaning: null };
const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 };
let interrupted = null;
for (const signal of Object.keys(SIGNAL_NUMBERS)) process.once(signal, () => void stop(signal));

/** Stops the child and everything it started with the same signal, cleans up, exits 128 + the signal's number (130, 143). */
async function stop(signal) {
  if (interrupted) return;
  interrupted = signal;
  console.error(`\n${signal}: the run is stopped`);
  const child = live.child;
  if (child && child.exitCode === null && child.signalCode === null) {
    const closed = new Promise((resolve) => child.once('close', resolve));
    killGroup(child.pid, signal);
    await closed;
    await groupGone(child.pid);
  }
  await cleanUp();
  process.exit(128 + SIGNAL_NUMBERS[signal]);
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** Waits until no process of the group is left (its test files' processes end on the signal), SIGKILL after 30 s. */
async function groupGone(pid) {
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let waited = 0; alive(); waited += 50) {
    if (waited >= 30_000) killGroup(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Removes the batch folder and drops the run's template database (or one a template maker stopped half-way made). */
function cleanUp() {
  return (live.cleaning ??= (async () => {
    if (live.dir) rmSync(live.dir, { recursive: true, force: true });
    const names = live.pgTemplate ? [live.pgTemplate] : [];
    if (live.templateMakerPid !== null && !live.pgTemplate) names.push(...(await postgresTemplatesOf(live.templateMakerPid).catch(() => [])));
    for (const name of names) await dropPostgresTemplate(name).catch((err) => console.error(`the template database ${name} was not dropped: ${err.message}`));
  })());
}

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out.sort();
}

// Browser tests (`*.browser.test.ts`, headless Chromium at /usr/bin/chromium) run once, like unit
// tests; so do stack tests (`*.stack.test.ts`): the bridge against Z-Wave JS's mock stack, whose
// subject is the edge and the real lock's stack, not how the service stores what it hears.
const isBrowserTest = (file) => file.endsWith('.browser.test.ts');
const isUnitTest = (file) => file.endsWith('.unit.test.ts') || file.endsWith('.stack.test.ts') || isBrowserTest(file);

const filters = process.argv.slice(2);
const unmatched = filters.filter((p) => !findTests('test').some((f) => f.includes(p)));
if (unmatched.length > 0) {
  console.error(`no test file matches ${unmatched.map((p) => `"${p}"`).join(', ')}`);
  console.log('\n0 passed, 1 failed');
  process.exit(1);
}
let all = findTests('test').filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)));
const notes = [];
if (!existsSync('/usr/bin/chromium') && all.some(isBrowserTest)) {
  const browserTests = all.filter(isBrowserTest);
  if (process.env.CI === 'true') {
    console.error('\nChromium is missing (/usr/bin/chromium): CI needs it for the browser tests (.ci/run installs it).');
    console.log('\n0 passed, 1 failed');
    process.exit(1);
  }
  notes.push(`browser tests skipped: no /usr/bin/chromium (apt-get install chromium); ${browserTests.length} files not run`);
  all = all.filter((f) => !isBrowserTest(f));
}
const databases = (process.env.LATCHKEY_TEST_DATABASES ?? 'sqlite,postgres').split(',');

// Test files run a batch to a process, not one each: a process spends ~3 s of CPU loading the
// service's ~1,000 modules (Node 20's loader, tsx's hooks), which was two thirds of the suite's
// CPU with a process per file (docs/decisions.md). A batch's files run one after another, each
// closing what it opened (every file's tests sit in a `describe` with its own before/after).
// LATCHKEY_TEST_FILES_PER_PROCESS=1 gives each file its own process again.
const FILES_PER_PROCESS = Math.max(1, Number(process.env.LATCHKEY_TEST_FILES_PER_PROCESS ?? 16));
// Both engines' batches run in one runner, several processes at a time: a test waits on sockets,
// timers and the databases most of its time, so one process a core left the cores half idle.
const CONCURRENCY = Math.max(1, Number(process.env.LATCHKEY_TEST_CONCURRENCY ?? availableParallelism() + 1));

/**
 * What a file is expected to cost, to balance the batches: its size (more tests, more text), more
 * for the tests that drive a browser or a real lock stack (each starts processes of its own).
 */
const weightOf = (file) => statSync(file).size * (isBrowserTest(file) || file.endsWith('.stack.test.ts') ? 3 : 1);

/**
 * Entry files that each set the engine and import a batch of test files, heaviest batch first
 * (the runner starts them in order): every engine's files are dealt out to its batches heaviest
 * first, each to the lightest batch so far, so the batches end at about the same time.
 */
function batches(runs, dir) {
  const entries = [];
  for (const { database, files } of runs) {
    const count = FILES_PER_PROCESS === 1 ? files.length : Math.ceil(files.length / FILES_PER_PROCESS);
    const bins = Array.from({ length: count }, () => ({ weight: 0, files: [] }));
    for (const file of [...files].sort((a, b) => weightOf(b) - weightOf(a))) {
      const lightest = bins.reduce((best, bin) => (bin.weight < best.weight ? bin : best));
      lightest.weight += weightOf(file);
      lightest.files.push(file);
    }
    bins.forEach((bin, k) => entries.push({ ...bin, path: join(dir, `${database}-${String(k + 1).padStart(3, '0')}.test.mjs`), database }));
  }
  entries.sort((a, b) => b.weight - a.weight);
  for (const { path, database, files } of entries) {
    // The files by static imports, from a module of their own (the engine is set before it loads):
    // every file of the batch is loaded before its first test runs. With `await import` one after
    // another, the first file's tests ran while the next ones loaded, and a module evaluated then
    // saw what a running test had put on globalThis (mqtt.js, loaded while
    // test/console/layout.unit.test.ts trapped `window`, took itself for a browser for the process).
    const filesModule = path.replace(/\.test\.mjs$/, '.files.mjs');
    writeFileSync(filesModule, files.map((f) => `import ${JSON.stringify(pathToFileURL(resolvePath(f)).href)};\n`).join(''));
    writeFileSync(path, `process.env.LATCHKEY_TEST_DB = ${JSON.stringify(database)};\nawait import(${JSON.stringify(pathToFileURL(filesModule).href)});\n`);
  }
  return entries.map((entry) => entry.path);
}

/**
 * The run's migrated databases, made once (test/helpers/template-databases.ts): each test's
 * database is a copy (SQLite) or created from it (PostgreSQL, CREATE DATABASE … TEMPLATE)
 * instead of running every migration again. Answers the environment naming them.
 */
function makeTemplates(dir, engines) {
  return new Promise((resolve, reject) => {
    // Its own process group (detached), stopped by stop() with the signal the runner got.
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/template-databases.ts', dir, engines.join(',')], { env: process.env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    live.child = child;
    if (engines.includes('postgres')) live.templateMakerPid = child.pid;
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the template databases could not be made (exit ${code})`));
      const made = JSON.parse(out.trim().split('\n').pop());
      resolve({
        ...(made.sqlite ? { LATCHKEY_TEST_SQLITE_TEMPLATE: made.sqlite } : {}),
        ...(made.postgres ? { LATCHKEY_TEST_PG_TEMPLATE: made.postgres } : {}),
      });
    });
  });
}

async function asPostgresAdmin(statement, values = []) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: process.env.LATCHKEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  try {
    return (await client.query(statement, values)).rows;
  } finally {
    await client.end();
  }
}

const dropPostgresTemplate = (name) => asPostgresAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);

/** The template databases a template maker made (test/helpers/template-databases.ts names them latchkey_template_PID_…). */
async function postgresTemplatesOf(pid) {
  const rows = await asPostgresAdmin(`select datname from pg_database where datname like $1`, [`latchkey\\_template\\_${pid}\\_%`]);
  return rows.map((row) => row.datname);
}

async function run(runs) {
  const total = runs.reduce((n, { files }) => n + files.length, 0);
  if (total === 0) return { passed: 0, failed: 0 };
  const dir = (live.dir = mkdtempSync(join(tmpdir(), 'latchkey-test-batches-')));
  let templates;
  try {
    templates = await makeTemplates(dir, runs.map(({ database }) => database));
    live.pgTemplate = templates.LATCHKEY_TEST_PG_TEMPLATE ?? null;
  } catch (err) {
    await untilStopped();
    await cleanUp();
    console.error(`\n${err.message}`);
    return { passed: 0, failed: 1 };
  }
  await untilStopped();
  const result = await new Promise((resolve) => {
    console.log(`\n### ${runs.map(({ database, files }) => `${files.length} test files on ${database}`).join(', ')}; ${CONCURRENCY} processes at a time\n`);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', `--test-concurrency=${CONCURRENCY}`, '--test-reporter=spec', ...batches(runs, dir)],
      // Its own process group (detached): stop() ends it and its test files' processes with the runner's signal.
      { env: { ...process.env, ...templates }, stdio: ['ignore', 'pipe', 'inherit'], detached: true },
    );
    live.child = child;
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
  await untilStopped();
  await cleanUp();
  return result;
}

/** Interrupted, the run goes no further: stop() cleans up and exits (never resolves then). */
function untilStopped() {
  return interrupted ? new Promise(() => {}) : Promise.resolve();
}

/** Whether the PostgreSQL server the tests would use answers on its TCP port. */
function postgresReachable() {
  const url = new URL(process.env.LATCHKEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port || 5432) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

let failed = 0;
const runs = [];
for (const database of databases) {
  const files = database === 'sqlite' ? all : all.filter((f) => !isUnitTest(f));
  // A pass without files is not queued: no template made for it, no server needed (a unit-only run passes without PostgreSQL).
  if (files.length === 0) continue;
  if (database === 'postgres' && !(await postgresReachable())) {
    if (process.env.CI === 'true') {
      console.error('\nPostgreSQL is not reachable (LATCHKEY_TEST_PG_URL or 127.0.0.1:5432): CI needs it.');
      failed += 1;
    } else {
      notes.push(`PostgreSQL pass skipped: no server at 127.0.0.1:5432 (set LATCHKEY_TEST_PG_URL); ${files.length} files not run on it`);
    }
    continue;
  }
  runs.push({ database, files });
}
const result = await run(runs);
const passed = result.passed;
failed += result.failed;
for (const note of notes) console.log(`\n${note}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
