import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { latchkey } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { eventually } from '../helpers/wait.js';

/** How many of each kind of handle this process holds (sockets, servers, timers, ...). */
function openResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** The kinds of which `now` holds more than `before`, and how many more. */
function leftOver(before: Map<string, number>, now: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...now].filter(([kind, n]) => n > (before.get(kind) ?? 0)).map(([kind, n]) => [kind, n - (before.get(kind) ?? 0)]));
}

const sameResources = (before: Map<string, number>, now: Map<string, number>) => Object.keys(leftOver(before, now)).length === 0;

/** Only the given variables set, besides PATH and HOME. */
const environment = (env: Record<string, string>) => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'silent', ...env });

/** Runs `latchkey <args>` through the executable's entry in this process (test/helpers/cli.ts). */
const runCli = (args: string[], env: Record<string, string> = {}) => latchkey(args, environment(env));

describe('latchkey command line', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'latchkey-cli-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('latchkey --help lists the commands and exits 0', async () => {
    for (const res of await Promise.all([['--help'], []].map((args) => runCli(args)))) {
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /Usage: latchkey <command>/);
      assert.match(res.stdout, /\bserve\b/);
      assert.match(res.stdout, /\bmigrate\b/);
    }
  });

  it('latchkey serve --help describes serve and exits 0 without starting anything', async () => {
    const res = await runCli(['serve', '--help'], { PORT: 'not even checked' });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /Usage: latchkey serve/);
    assert.match(res.stdout, /migrates the database/i);
    for (const name of ['PORT', 'DATA_DIR', 'DATABASE_URL', 'MQTT_PORT', 'SMTP_URL', 'LOG_LEVEL']) assert.match(res.stdout, new RegExp(`^  ${name} +\\S.*\\(default: `, 'm'), `${name} not listed`);
  });

  it('an unknown command exits 2 naming it', async () => {
    const res = await runCli(['frobnicate']);
    assert.equal(res.code, 2);
    assert.match(res.stderr, /unknown command "frobnicate"/);
  });

  it('an unknown option or a stray argument exits 2 with a clear message', async () => {
    const [bogus, stray] = await Promise.all([runCli(['serve', '--bogus']), runCli(['migrate', 'extra'])]);
    assert.equal(bogus.code, 2);
    assert.match(bogus.stderr, /^latchkey serve: .*--bogus/m);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /^latchkey migrate: .*extra/m);
  });

  it('a wrong configuration value stops start-up with one line naming the variable', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ PORT: 'abc' }, 'PORT'],
      [{ DATABASE_URL: 'mysql://db' }, 'DATABASE_URL'],
      [{ TRUST_PROXY: 'my-proxy' }, 'TRUST_PROXY'],
    ];
    const results = await Promise.all(cases.map(([env]) => runCli(['serve'], { DATA_DIR: dataDir, ...env })));
    for (const [i, [, name]] of cases.entries()) {
      const res = results[i]!;
      assert.notEqual(res.code, 0, `${name}: exit ${res.code}`);
      const lines = res.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `one line, got: ${res.stderr}`);
      assert.match(lines[0]!, new RegExp(`\\b${name}\\b`));
      assert.equal(res.stdout, '');
    }
  });

  // A start that fails must close whatever it opened before the failure (a database, the broker,
  // a Redis client), or the `latchkey serve` process would not end: each case runs in this process
  // and leaves no handle behind (sockets, servers, timers: process.getActiveResourcesInfo()).
  it('a setting that names something out of reach stops start-up with one line naming it, leaving nothing open', { timeout: 60_000 }, async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' }, 'DATABASE_URL'],
      [{ REDIS_URL: 'redis://127.0.0.1:1' }, 'REDIS_URL'],
      [{ MQTT_URL: 'mqtt://127.0.0.1:1' }, 'MQTT_URL'],
      [{ HOST: 'not_a_host.invalid', MQTT_PORT: '0' }, 'HOST'],
      [{ CA_FILE: '/nonexistent/latchkey-ca.json', MQTT_PORT: '0' }, 'CA_FILE'],
    ];
    for (const [i, [env, name]] of cases.entries()) {
      // The baseline once the process's handles stop changing (the previous case's last socket, a
      // pool's idle timer): one of those closing meanwhile would hide a leaked handle of its kind.
      let open = openResources();
      await eventually(() => {
        const now = openResources();
        const settled = sameResources(open, now) && sameResources(now, open);
        open = now;
        return settled;
      }, `${name}: the handles before the start settled`, 10_000);
      const res = await runCli(['serve'], { DATA_DIR: join(dataDir, `reach-${i}`), PORT: '0', ...env });
      assert.equal(res.code, 1, `${name}: exit ${res.code} ${res.stderr}`);
      const lines = res.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `one line, got: ${res.stderr}`);
      assert.match(lines[0]!, new RegExp(`\\b${name}\\b`));
      await eventually(() => sameResources(open, openResources()), `${name}: the failed start closed what it opened`, 5000).catch(() => {
        assert.fail(`${name}: the failed start left open ${JSON.stringify(leftOver(open, openResources()))}`);
      });
    }
  });

  it('resolves a relative DATA_DIR against the directory it is run in, not the process\'s', async () => {
    const res = await latchkey(['migrate'], environment({ DATA_DIR: 'relative-data' }), dataDir);
    assert.equal(res.code, 0, res.stderr);
    assert.ok(existsSync(join(dataDir, 'relative-data', 'latchkey.sqlite')), 'the database is made under the run\'s directory');
    assert.equal(existsSync(join(process.cwd(), 'relative-data')), false);
  });

  it('resolves a relative option path against the directory it is run in, not the process\'s', async () => {
    writeFileSync(join(dataDir, 'witnessed.note'), 'not a signed note\n');
    const res = await latchkey(['audit', 'verify', '--checkpoint', 'witnessed.note'], environment({ DATA_DIR: 'relative-data-options' }), dataDir);
    assert.doesNotMatch(`${res.stdout}${res.stderr}`, /no file/, 'the file is found in the run\'s directory');
    assert.equal(existsSync(join(process.cwd(), 'witnessed.note')), false);
  });

  it('writes a lock\'s certificate to a relative --cert-out under the directory it is run in', async () => {
    const env = environment({ DATA_DIR: 'relative-data-certificate' });
    const provisioned = await latchkey(['lock', 'provision', '--name', 'Relative door'], env, dataDir);
    assert.equal(provisioned.code, 0, provisioned.stderr);
    const { id } = JSON.parse(provisioned.stdout) as { id: string };
    const res = await latchkey(['lock', 'certificate', '--id', id, '--cert-out', 'relative-certs'], env, dataDir);
    assert.equal(res.code, 0, res.stderr);
    assert.ok(existsSync(join(dataDir, 'relative-certs')), 'the directory is made under the run\'s directory');
    assert.equal(existsSync(join(process.cwd(), 'relative-certs')), false);
  });

  describe('latchkey migrate', () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(dataDir);
    });
    after(() => database.drop());

    it('brings a fresh database up to date, exits 0, and is a no-op the second time', async () => {
      const env = { DATA_DIR: dataDir, DATABASE_URL: database.url };
      const first = await runCli(['migrate'], env);
      assert.equal(first.code, 0, first.stderr);
      const applied = JSON.parse(first.stdout.trim()).applied;
      assert.ok(Array.isArray(applied) && applied.length >= 1, first.stdout);
      const second = await runCli(['migrate'], env);
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual(JSON.parse(second.stdout.trim()).applied, []);
    });
  });
});
