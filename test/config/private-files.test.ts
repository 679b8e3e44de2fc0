import assert from 'node:assert/strict';
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config/config.js';
import { startService } from '../../src/server.js';
import { createTestDatabase, TEST_DB, type TestDatabase } from '../helpers/database.js';
import { createUser } from '../helpers/factories.js';
import { Api } from '../helpers/http.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** A logger that keeps what it writes, to read the start-up warnings back. */
function recordingLogger() {
  const lines: Array<{ msg: string; path?: string }> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), lines };
}

describe('files at rest are private to the service user', () => {
  let parent: string;
  let dataDir: string;
  let database: TestDatabase;
  let config: Config;

  before(async () => {
    parent = await mkdtemp(join(tmpdir(), 'latchkey-files-'));
    dataDir = join(parent, 'data'); // made by the service itself
    database = await createTestDatabase();
    const url = TEST_DB === 'sqlite' ? `file:${join(dataDir, 'latchkey.sqlite')}` : database.url;
    config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: url, MQTT_PORT: '0', LOG_LEVEL: 'silent' }, process.cwd());
  });
  after(async () => {
    await database.drop();
    await rm(parent, { recursive: true, force: true });
  });

  it('creates the data directory, database, key file and outbox owner-only', async () => {
    const service = await startService(config);
    try {
      await createUser(new Api(service.url)); // the verification email lands in the outbox
    } finally {
      await service.close();
    }
    assert.equal(modeOf(dataDir), 0o700);
    assert.equal(modeOf(join(dataDir, 'key-encryption.key')), 0o600);
    const outbox = join(dataDir, 'outbox');
    assert.equal(modeOf(outbox), 0o700);
    const messages = readdirSync(outbox);
    assert.ok(messages.length > 0, 'registration wrote to the outbox');
    for (const name of messages) assert.equal(modeOf(join(outbox, name)), 0o600, name);
    if (TEST_DB === 'sqlite') {
      for (const name of readdirSync(dataDir).filter((n) => n.startsWith('latchkey.sqlite'))) assert.equal(modeOf(join(dataDir, name)), 0o600, name);
    }
  });

  it('warns at start-up, naming each path, when one was loosened', async () => {
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'key-encryption.key'), 0o644);
    if (TEST_DB === 'sqlite') chmodSync(join(dataDir, 'latchkey.sqlite'), 0o644);
    const { logger, lines } = recordingLogger();
    const service = await startService(config, { logger });
    await service.close();
    const warned = lines.filter((l) => l.path).map((l) => l.path);
    const expected = [dataDir, join(dataDir, 'key-encryption.key'), ...(TEST_DB === 'sqlite' ? [join(dataDir, 'latchkey.sqlite')] : [])];
    for (const path of expected) assert.ok(warned.includes(path), `a warning names ${path}: ${JSON.stringify(lines)}`);
    assert.match(lines.find((l) => l.path === dataDir)!.msg, /chmod 700/);
  });
});
