import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { uniqueEmail } from '../helpers/factories.js';
import { startTestService, TEST_PASSWORD_HASH_MEMORY_KIB, type TestService } from '../helpers/service.js';
import { PASSWORD_HASH_MEMORY_KIB } from '../../src/crypto/passwords.js';
import { findUserRow, subjectOf } from './support.js';

/** Every value of every row of every table, as text (bytes both as Base64 and as raw). */
async function everyStoredValue(t: TestService): Promise<Array<{ where: string; text: string; bytes: Buffer | null }>> {
  const db = t.service.ctx.db.kysely;
  const tables =
    t.service.ctx.db.dialect === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows.map((r) => r.name)
      : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db)).rows.map((r) => r.name);
  assert.ok(tables.includes('users') && tables.includes('service_keys') && tables.includes('sealed_secrets'), `tables: ${tables.join(', ')}`);
  const values: Array<{ where: string; text: string; bytes: Buffer | null }> = [];
  for (const table of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        const where = `${table}.${column}`;
        if (typeof value === 'string') values.push({ where, text: value, bytes: null });
        else if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
          const bytes = Buffer.from(value);
          values.push({ where, text: bytes.toString('base64'), bytes });
        }
      }
    }
  }
  return values;
}

/** The parameters an argon2id hash (PHC string) records: `$argon2id$v=19$m=…,t=…,p=…$salt$hash`, in any order. */
function argon2Parameters(hash: string | null | undefined): { m: number; t: number; p: number } {
  const match = /^\$argon2id\$v=19\$([^$]+)\$/.exec(hash ?? '');
  assert.ok(match, `hash format: ${hash?.slice(0, 30)}`);
  const params = Object.fromEntries(match[1]!.split(',').map((p) => p.split('=') as [string, string]));
  return { m: Number(params.m), t: Number(params.t), p: Number(params.p) };
}

describe('secrets at rest', () => {
  let t: TestService;
  before(async () => {
    // Without the test-only passwordHashMemoryKiB: the cost `latchkey serve` runs with, not the cheaper one of the other test services.
    t = await startTestService({}, { productionPasswordCost: true });
  });
  after(() => t.close());

  it('no password and no private key is stored in readable form anywhere in the database', async () => {
    const password = `Pa55 ${crypto.randomUUID()}`;
    const newPassword = `New ${crypto.randomUUID()}`;
    const secrets: Array<{ label: string; text: string; der?: Buffer }> = [];
    for (const version of [1, 2]) {
      const res = await t.api.post('/auth/register', { version, body: { email: uniqueEmail(`rest-v${version}`), password } });
      assert.equal(res.status, 200);
      const der = Buffer.from(res.body.privateKey, 'base64');
      secrets.push({ label: `v${version} private key`, text: res.body.privateKey, der });
      // A PEM rendering of the key would hold its Base64 in 64-character lines.
      secrets.push({ label: `v${version} private key, first PEM line`, text: res.body.privateKey.slice(0, 64) });
      secrets.push({ label: `v${version} private key, hex`, text: der.toString('hex') });
    }
    const v3 = await t.api.post('/auth/register', { version: 3, body: { email: uniqueEmail('rest-v3'), password } });
    const change = await t.api.post('/account/password', { token: v3.body.authToken, body: { oldPassword: password, newPassword } });
    assert.equal(change.status, 204);
    secrets.push({ label: 'password', text: password }, { label: 'new password', text: newPassword });

    const signing = t.service.ctx.keys.signingKey().privateKey;
    const signingDer = signing.export({ format: 'der', type: 'pkcs8' });
    secrets.push({ label: 'token signing key', text: signingDer.toString('base64'), der: signingDer });
    secrets.push({ label: 'token signing key (JWK d)', text: String(signing.export({ format: 'jwk' }).d) });

    const values = await everyStoredValue(t);
    assert.ok(values.length > 20, 'the scan saw the data');
    for (const value of values) {
      for (const secret of secrets) {
        assert.ok(!value.text.includes(secret.text), `${secret.label} found in ${value.where}`);
        if (value.bytes && secret.der) assert.ok(!value.bytes.includes(secret.der), `${secret.label} (DER) found in ${value.where}`);
      }
    }
  });

  it('passwords are hashed with argon2id at no less than the OWASP parameters, by default (a deployment that sets nothing)', async () => {
    assert.equal(t.service.ctx.passwordHashMemoryKiB, PASSWORD_HASH_MEMORY_KIB);
    const email = uniqueEmail('argon');
    const res = await t.api.post('/auth/register', { version: 3, body: { email, password: 'long enough' } });
    const user = subjectOf(res.body.authToken);
    const changed = await t.api.post('/account/password', { token: res.body.authToken, body: { oldPassword: 'long enough', newPassword: 'longer enough' } });
    assert.equal(changed.status, 204, changed.text);
    const params = argon2Parameters((await findUserRow(t, user))?.password_hash);
    assert.ok(params.m >= 19_456 && params.t >= 2 && params.p >= 1, JSON.stringify(params));
    assert.deepEqual(params, { m: 19_456, t: 2, p: 1 });
  });

  it('a cheaper cost (the test-only option the other test services run with) is what the hash records, and it still verifies', async () => {
    const cheap = await startTestService();
    try {
      assert.equal(cheap.service.ctx.passwordHashMemoryKiB, TEST_PASSWORD_HASH_MEMORY_KIB);
      const res = await cheap.api.post('/auth/register', { version: 3, body: { email: uniqueEmail('cheap'), password: 'long enough' } });
      const row = await findUserRow(cheap, subjectOf(res.body.authToken));
      assert.deepEqual(argon2Parameters(row?.password_hash), { m: TEST_PASSWORD_HASH_MEMORY_KIB, t: 2, p: 1 });
      const login = await cheap.api.post('/auth/token', { version: 3, body: { email: row!.email, password: 'long enough' } });
      assert.equal(login.status, 200, login.text);
    } finally {
      await cheap.close();
    }
  });

  it('private keys are sealed (AES-GCM format) and the key file is readable by its owner only', async () => {
    const res = await t.api.post('/auth/register', { body: { email: uniqueEmail('sealed'), password: 'long enough' } });
    const row = await findUserRow(t, subjectOf(res.body.authToken));
    assert.match(row?.private_key_sealed ?? '', /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal(row?.public_key, res.body.publicKey);
    const mode = statSync(join(t.dataDir, 'key-encryption.key')).mode & 0o777;
    assert.equal(mode, 0o600);
  });

  it('verification codes are stored only as hashes', async () => {
    const values = await everyStoredValue(t);
    const hashes = values.filter((v) => v.where === 'email_verifications.code_hash');
    assert.ok(hashes.length > 0);
    for (const hash of hashes) assert.match(hash.text, /^[0-9a-f]{64}$/);
  });
});
