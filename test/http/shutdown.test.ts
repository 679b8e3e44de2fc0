import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { freePort } from '../helpers/ports.js';

const SHUTDOWN_GRACE_MS = 20_000;

/** Resolves once `child` prints a line matching `pattern` on stdout; rejects if it exits first. */
function waitForLine(child: ChildProcess, pattern: RegExp, seen: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      seen.push(...lines);
      if (lines.some((line) => pattern.test(line))) {
        child.stdout!.off('data', onData);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${seen.join('\n')}`)));
  });
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

describe('latchkey serve: clean shutdown', () => {
  let dataDir: string;
  let database: TestDatabase;
  let child: ChildProcess | null = null;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'latchkey-serve-'));
    database = await createTestDatabase(dataDir);
  });
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exitOf(child);
    }
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves requests, then exits 0 on SIGTERM', async () => {
    const port = await freePort(); // serve cannot report the port PORT=0 picked
    const seen: string[] = [];
    child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: database.url, MQTT_PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    await waitForLine(child, /latchkey serving/, seen);

    const time = await fetch(`http://127.0.0.1:${port}/time`);
    assert.equal(time.status, 200);
    assert.ok(Number.isInteger(((await time.json()) as { now: number }).now));
    const register = await fetch(`http://127.0.0.1:${port}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `serve-${process.pid}@example.com`, password: 'long enough' }),
    });
    assert.equal(register.status, 200);

    const exited = exitOf(child);
    child.kill('SIGTERM');
    // A hang guard, not a timing assertion: a clean shutdown takes well under a second.
    const guard = setTimeout(() => child?.kill('SIGKILL'), SHUTDOWN_GRACE_MS);
    const { code, signal } = await exited;
    clearTimeout(guard);
    assert.equal(signal, null, `killed by ${signal}; stderr: ${stderr}`);
    assert.equal(code, 0, `exit ${code}; stderr: ${stderr}`);
    assert.match(stdout, /"signal":"SIGTERM".*shutting down/, 'it logged its shutdown');
    await assert.rejects(fetch(`http://127.0.0.1:${port}/time`), 'nothing listens any more');
  });
});
