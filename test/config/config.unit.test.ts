import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const CWD = '/srv/latchkey';

function refused(env: Record<string, string>, variable: string): void {
  assert.throws(
    () => loadConfig(env, CWD),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${String(err)}`);
      assert.match(err.message, new RegExp(`^${variable}\\b`), err.message);
      assert.ok(!err.message.includes('\n'), 'one line');
      return true;
    },
  );
}

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({}, CWD);
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.baseUrl, 'http://localhost:8080');
    assert.equal(config.dataDir, '/srv/latchkey/data');
    assert.deepEqual(config.database, { kind: 'sqlite', file: '/srv/latchkey/data/latchkey.sqlite' });
    assert.deepEqual(config.mqtt, { kind: 'embedded', port: 1884 });
    assert.equal(config.redisUrl, null);
    assert.equal(config.smtpUrl, null);
    assert.equal(config.smsWebhookUrl, null);
    assert.equal(config.cdnUrl, 'http://localhost:8080/cdn');
    assert.equal(config.lockReplyTimeoutMs, 5000);
    assert.equal(config.certCheck, 'new-key');
    assert.equal(config.logLevel, 'info');
    assert.deepEqual(config.trustProxy, []);
    assert.equal(config.keyEncryptionKey, null);
    assert.equal(config.tokens.authTtlSeconds, 7 * 24 * 3600);
    assert.equal(config.tokens.refreshTtlSeconds, 90 * 24 * 3600);
    assert.deepEqual(config.limits.loginFailuresPerAccount, { points: 10, durationSeconds: 900 });
    assert.deepEqual(config.limits.loginFailuresPerAccountAll, { points: 100, durationSeconds: 900 });
    assert.deepEqual(config.limits.verificationPerUser, { points: 10, durationSeconds: 3600 });
    assert.equal(config.limits.authPerIp.points, 300);
    assert.deepEqual(config.limits.executePerUser, { points: 600, durationSeconds: 60 });
    assert.deepEqual(config.limits.executePerLock, { points: 1200, durationSeconds: 60 });
    // argon2id's cost is a constant (src/crypto/passwords.ts), not a setting: another cost than the stored hashes' would time unknown emails apart.
    assert.ok(!('passwordHashMemoryKiB' in config));
    assert.ok(!('passwordHashMemoryKiB' in loadConfig({ PASSWORD_HASH_MEMORY_KIB: '1024' }, CWD)), 'PASSWORD_HASH_MEMORY_KIB is not read');
  });

  it('treats empty values as unset', () => {
    assert.equal(loadConfig({ PORT: '', LOG_LEVEL: '', SMTP_URL: '' }, CWD).port, 8080);
  });

  it('reads every variable it is given', () => {
    const kek = randomBytes(32).toString('base64');
    const config = loadConfig(
      {
        PORT: '9000',
        HOST: '127.0.0.1',
        BASE_URL: 'https://doors.example.com/',
        DATA_DIR: 'state',
        DATABASE_URL: 'postgres://u@db:5432/latchkey',
        MQTT_URL: 'mqtts://broker:8883',
        REDIS_URL: 'redis://cache:6379',
        SMTP_URL: 'smtp://user:pass@mail:587',
        SMS_WEBHOOK_URL: 'https://sms.example.com/hook',
        CDN_URL: 'https://cdn.example.com/',
        LOCK_REPLY_TIMEOUT_MS: '750',
        CERT_CHECK: 'always',
        LOG_LEVEL: 'debug',
        TRUST_PROXY: '10.0.0.1, 192.168.0.0/16 ,loopback,::1',
        KEY_ENCRYPTION_KEY: kek,
        RATE_LOGIN_FAILURES_PER_ACCOUNT: '3',
        RATE_LOGIN_FAILURES_WINDOW_SECONDS: '60',
        RATE_VERIFY_PER_USER: '4',
        RATE_AUTH_PER_IP: '7',
        RATE_EXECUTE_PER_USER: '20',
        RATE_EXECUTE_PER_LOCK: '40',
      },
      CWD,
    );
    assert.equal(config.port, 9000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.baseUrl, 'https://doors.example.com', 'no trailing slash');
    assert.equal(config.dataDir, '/srv/latchkey/state');
    assert.deepEqual(config.database, { kind: 'postgres', url: 'postgres://u@db:5432/latchkey', preparedStatements: true });
    assert.deepEqual(config.mqtt, { kind: 'external', url: 'mqtts://broker:8883' });
    assert.equal(config.redisUrl, 'redis://cache:6379');
    assert.equal(config.cdnUrl, 'https://cdn.example.com');
    assert.equal(config.lockReplyTimeoutMs, 750);
    assert.equal(config.certCheck, 'always');
    assert.equal(config.logLevel, 'debug');
    assert.deepEqual(config.trustProxy, ['10.0.0.1', '192.168.0.0/16', 'loopback', '::1']);
    assert.equal(config.keyEncryptionKey, kek);
    assert.deepEqual(config.limits.loginFailuresPerAccount, { points: 3, durationSeconds: 60 });
    assert.deepEqual(config.limits.verificationPerUser, { points: 4, durationSeconds: 3600 });
    assert.equal(config.limits.authPerIp.points, 7);
    assert.equal(config.limits.executePerUser.points, 20);
    assert.equal(config.limits.executePerLock.points, 40);
  });

  it('BASE_URL defaults to the configured port', () => {
    assert.equal(loadConfig({ PORT: '3000' }, CWD).baseUrl, 'http://localhost:3000');
  });

  it('reads SQLite database URLs relative to the working directory', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'file:/var/lib/lk.sqlite' }, CWD).database, { kind: 'sqlite', file: '/var/lib/lk.sqlite' });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:db/lk.sqlite' }, CWD).database, { kind: 'sqlite', file: '/srv/latchkey/db/lk.sqlite' });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'postgresql://db/x' }, CWD).database.kind, 'postgres');
  });

  it('turns PostgreSQL\'s named prepared statements off for a transaction-pooling proxy', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'postgresql://db/x', DATABASE_PREPARED_STATEMENTS: 'false' }, CWD).database, { kind: 'postgres', url: 'postgresql://db/x', preparedStatements: false });
    assert.throws(() => loadConfig({ DATABASE_URL: 'postgresql://db/x', DATABASE_PREPARED_STATEMENTS: 'no' }, CWD), /DATABASE_PREPARED_STATEMENTS/);
  });

  it('refuses each wrong value with a ConfigError naming the variable', () => {
    const cases: Array<[string, string]> = [
      ['PORT', 'abc'],
      ['PORT', '-1'],
      ['PORT', '65536'],
      ['PORT', '80.5'],
      ['PORT', '0x50'],
      ['PORT', '1e3'],
      ['PORT', ' 80'],
      ['MQTT_PORT', 'mqtt'],
      ['LOCK_REPLY_TIMEOUT_MS', '0'],
      ['AUTH_TOKEN_TTL_SECONDS', '10'],
      ['REFRESH_TOKEN_TTL_SECONDS', 'forever'],
      ['RATE_LOGIN_FAILURES_PER_ACCOUNT', '0'],
      ['RATE_AUTH_PER_IP', 'many'],
      ['RATE_REQUESTS_PER_CALLER', '-5'],
      ['RATE_EXECUTE_PER_USER', '0'],
      ['RATE_EXECUTE_PER_USER', 'lots'],
      ['RATE_EXECUTE_PER_LOCK', '1.5'],
      ['RATE_EXECUTE_PER_LOCK', '100000001'],
      ['RATE_VERIFY_PER_USER', '0'],
      ['RATE_LOGIN_FAILURES_WINDOW_SECONDS', 'soon'],
      ['MQTT_TOPIC_PREFIX', 'a/#'],
      ['MQTT_TOPIC_PREFIX', '$SYS'],
      ['BASE_URL', 'not a url'],
      ['BASE_URL', 'ftp://doors.example.com'],
      ['DATABASE_URL', 'mysql://db/latchkey'],
      ['MQTT_URL', 'http://broker'],
      ['REDIS_URL', 'redis'],
      ['SMTP_URL', 'mailto:ops@example.com'],
      ['SMS_WEBHOOK_URL', 'sms://x'],
      ['CDN_URL', '//cdn'],
      ['CERT_CHECK', 'sometimes'],
      ['LOG_LEVEL', 'loud'],
      ['TRUST_PROXY', 'my-proxy'],
      ['TRUST_PROXY', '10.0.0.1,300.1.1.1'],
      ['TRUST_PROXY', '10.0.0.0/99'],
      ['KEY_ENCRYPTION_KEY', 'too short'],
      ['KEY_ENCRYPTION_KEY', randomBytes(16).toString('base64')],
      ['KEY_ENCRYPTION_KEY', `${randomBytes(32).toString('base64')}!!`],
    ];
    for (const [variable, value] of cases) refused({ [variable]: value }, variable);
  });

  it('never echoes a wrong KEY_ENCRYPTION_KEY', () => {
    const secret = randomBytes(20).toString('base64');
    assert.throws(() => loadConfig({ KEY_ENCRYPTION_KEY: secret }, CWD), (err: Error) => !err.message.includes(secret));
  });

  it('accepts the bounds of integer ranges', () => {
    assert.equal(loadConfig({ PORT: '0' }, CWD).port, 0);
    assert.equal(loadConfig({ PORT: '65535' }, CWD).port, 65535);
  });
});
