import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { startService, type RunningService } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { uniqueEmail } from '../helpers/factories.js';
import { Api } from '../helpers/http.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { verificationCode } from './support.js';

describe('secrets never reach the logs', () => {
  const lines: string[] = [];
  let dataDir: string;
  let database: TestDatabase;
  let sink: SmtpSink;
  let service: RunningService;
  let api: Api;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'latchkey-logs-'));
    database = await createTestDatabase(dataDir);
    sink = await startSmtpSink();
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', BASE_URL: 'http://latchkey.test', DATA_DIR: dataDir, DATABASE_URL: database.url, MQTT_PORT: '0', SMTP_URL: sink.url }, process.cwd());
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = pino({ level: 'trace', redact: { paths: ['req.headers.authorization', 'password', 'privateKey', '*.password', '*.privateKey'], censor: '[redacted]' } }, stream);
    service = await startService(config, { logger });
    api = new Api(service.url);
  });
  after(async () => {
    await service?.close();
    await sink?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('passwords, private keys, tokens and verification codes appear in no log line', async () => {
    const email = uniqueEmail('logs');
    const password = `Secret ${crypto.randomUUID()}`;
    const newPassword = `Newer ${crypto.randomUUID()}`;
    const registered = await api.post('/auth/register', { body: { email, password } });
    assert.equal(registered.status, 200);
    const { code } = await verificationCode(sink, email);
    const secrets = [password, newPassword, registered.body.privateKey, registered.body.authToken, registered.body.refreshToken, code];

    await api.post('/auth/token', { body: { email, password: newPassword } });
    const login = await api.post('/auth/token', { body: { email, password } });
    secrets.push(login.body.authToken, login.body.refreshToken);
    const refreshed = await api.post('/auth/token/refresh', { token: login.body.refreshToken });
    secrets.push(refreshed.body.authToken, refreshed.body.refreshToken);
    await api.post('/auth/token/refresh', { token: login.body.refreshToken });
    await api.get('/account', { token: registered.body.authToken });
    await api.post('/account/password', { token: registered.body.authToken, body: { oldPassword: newPassword, newPassword } });
    await api.post('/account/password', { token: registered.body.authToken, body: { oldPassword: password, newPassword } });
    await api.put(`/account/email/verify?code=${encodeURIComponent(code)}`);
    await api.put(`/account/email/verify?code=${encodeURIComponent(code)}`);
    await api.post('/auth/register', { rawBody: `{"email":"${email}","password":"${password}"` });
    await api.post('/token/destroy', { token: registered.body.authToken });

    const log = lines.join('');
    assert.ok(lines.length > 10, 'requests were logged');
    assert.ok(log.includes('/account/email/verify'), 'the verify request was logged');
    for (const secret of secrets) {
      assert.ok(secret && !log.includes(secret), `a secret leaked into the logs: ${String(secret).slice(0, 12)}…`);
      assert.ok(!log.includes(encodeURIComponent(secret)), 'a secret leaked into the logs URL-encoded');
    }
  });
});
