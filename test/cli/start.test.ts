import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { accepting, freePort } from '../helpers/ports.js';

/** When the test fails because npm left the service running, stop that service (its log names its pid). */
function killOrphan(output: string): void {
  const pid = Number(/"pid":(\d+)/.exec(output)?.[1]);
  if (!pid) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone: the usual case.
  }
}

// A supervisor (systemd, a container runtime) runs `npm start` and stops it with SIGTERM to that
// process: npm → sh → node. The signal must reach the service, which closes and exits 0.
describe('npm start under a supervisor', () => {
  let dataDir: string;
  let database: TestDatabase;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'latchkey-start-'));
    database = await createTestDatabase(dataDir);
  });
  after(async () => {
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('SIGTERM to the npm process stops the service cleanly: exit 0, port closed', { timeout: 120_000 }, async () => {
    assert.ok(existsSync('dist/cli/main.js'), 'npm start runs the build: run `npm run build` (npm ci does it)');
    const port = await freePort();
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info' };
    const npm = spawn('npm', ['start'], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    npm.stdout.on('data', (chunk) => (output += chunk));
    npm.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => npm.on('exit', (code, signal) => resolve({ code, signal })));
    try {
      await new Promise<void>((resolve, reject) => {
        const check = () => (output.includes('"latchkey serving"') ? resolve() : undefined);
        npm.stdout.on('data', check);
        void exited.then(() => reject(new Error(`npm start ended before serving:\n${output}`)));
      });
      assert.equal(await accepting(port), true);

      npm.kill('SIGTERM');
      const { code, signal } = await exited;
      assert.deepEqual({ code, signal }, { code: 0, signal: null }, output);
      assert.match(output, /"signal":"SIGTERM".*"shutting down"/);
      assert.equal(await accepting(port), false, 'the service is still listening after npm exited');
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
      killOrphan(output);
    }
  });
});
