import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reportSmtpReachability } from '../../src/messaging/smtp-check.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { capturingLogger } from '../helpers/mqtt.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

/** A port nothing listens on: taken from the system, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
    });
  });
}

interface ServeRun {
  /** Every log line until the SMTP verdict and the service's clean stop. */
  lines: Array<Record<string, unknown>>;
  code: number | null;
}

/** Runs `latchkey serve` until it has logged the SMTP verdict and is serving, then stops it with SIGTERM. */
function serveUntilSmtpVerdict(env: Record<string, string>): Promise<ServeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let stopping = false;
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const verdict = /"msg":"SMTP_URL (reachable|unreachable)/.test(output);
      if (!stopping && verdict && output.includes('"latchkey serving"')) {
        stopping = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      if (!stopping) reject(new Error(`serve ended before the SMTP verdict (exit ${code}):\n${output}`));
      else resolve({ lines, code });
    });
  });
}

describe('SMTP_URL is checked at start-up', () => {
  let dataDir: string;
  let sink: SmtpSink;
  const databases: TestDatabase[] = [];
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'latchkey-smtp-check-'));
    sink = await startSmtpSink();
  });
  after(async () => {
    await sink.close();
    await Promise.all(databases.map((d) => d.drop()));
    await rm(dataDir, { recursive: true, force: true });
  });

  async function serve(name: string, smtpUrl: string): Promise<ServeRun> {
    const database = await createTestDatabase();
    databases.push(database);
    return serveUntilSmtpVerdict({ DATA_DIR: join(dataDir, name), DATABASE_URL: database.url, SMTP_URL: smtpUrl });
  }

  it('an unreachable SMTP server is a warning naming SMTP_URL, without its password; the service still serves and stops cleanly', { timeout: 90_000 }, async () => {
    const port = await closedPort();
    const run = await serve('unreachable', `smtp://mailer:hunter2-secret@127.0.0.1:${port}`);
    const warning = run.lines.find((l) => String(l.msg).startsWith('SMTP_URL unreachable'));
    assert.ok(warning, JSON.stringify(run.lines));
    assert.equal(warning.level, 40, 'a warning');
    assert.equal(warning.setting, 'SMTP_URL');
    assert.equal(warning.smtp, `smtp://127.0.0.1:${port}`);
    assert.ok(run.lines.some((l) => l.msg === 'latchkey serving'));
    assert.equal(JSON.stringify(run.lines).includes('hunter2-secret'), false, 'the SMTP password was logged');
    assert.equal(run.code, 0);
  });

  // The check serve runs (the test above holds serve to running it, with its logger, on SMTP_URL), in this process.
  it('a reachable SMTP server is logged as such, with no warning', async () => {
    const { logger, lines } = capturingLogger();
    assert.equal(await reportSmtpReachability(sink.url, logger), true);
    assert.ok(lines.some((l) => l.msg === 'SMTP_URL reachable' && l.level === 30), JSON.stringify(lines));
    assert.equal(lines.some((l) => String(l.msg).includes('SMTP_URL unreachable')), false);
  });
});
