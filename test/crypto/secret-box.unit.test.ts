import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createSecretBox, loadKeyEncryptionKey } from '../../src/crypto/secret-box.js';

const box = createSecretBox(randomBytes(32));

/** Changes one character of the `part`-th dot-separated segment of a sealed value. */
function tamper(sealed: string, part: number): string {
  const parts = sealed.split('.');
  const segment = parts[part]!;
  parts[part] = `${segment[0] === 'A' ? 'B' : 'A'}${segment.slice(1)}`;
  return parts.join('.');
}

describe('secret box', () => {
  it('round-trips bytes and text under the same context', () => {
    const secret = randomBytes(1200);
    assert.deepEqual(box.open(box.seal(secret, 'user-private-key:1'), 'user-private-key:1'), secret);
    assert.equal(box.open(box.seal('pässwörd', 'ctx'), 'ctx').toString('utf8'), 'pässwörd');
    assert.equal(box.open(box.seal('', 'ctx'), 'ctx').length, 0);
  });

  it('never shows the plaintext and never seals the same way twice', () => {
    const plaintext = 'the front door private key';
    const first = box.seal(plaintext, 'ctx');
    const second = box.seal(plaintext, 'ctx');
    assert.notEqual(first, second, 'a fresh IV each time');
    for (const sealed of [first, second]) {
      assert.ok(!sealed.includes(plaintext));
      assert.ok(!sealed.includes(Buffer.from(plaintext).toString('base64url')));
      assert.match(sealed, /^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    }
  });

  it('refuses to open under another context (a value moved to another row)', () => {
    const sealed = box.seal('secret', 'user-private-key:alice');
    assert.throws(() => box.open(sealed, 'user-private-key:bob'));
    assert.throws(() => box.open(sealed, ''));
  });

  it('refuses a tampered IV, tag or ciphertext', () => {
    const sealed = box.seal('a secret long enough to tamper with', 'ctx');
    for (const part of [1, 2, 3]) assert.throws(() => box.open(tamper(sealed, part), 'ctx'), `part ${part}`);
    assert.throws(() => box.open(`${sealed}A`, 'ctx'));
  });

  it('refuses a truncated tag (GCM would accept 4 bytes of it)', () => {
    const [format, iv, tag, body] = box.seal('secret', 'ctx').split('.');
    const truncated = Buffer.from(tag!, 'base64url').subarray(0, 4).toString('base64url');
    assert.throws(() => box.open([format, iv, truncated, body].join('.'), 'ctx'));
  });

  it('refuses another key and malformed values', () => {
    const sealed = box.seal('secret', 'ctx');
    assert.throws(() => createSecretBox(randomBytes(32)).open(sealed, 'ctx'));
    for (const bad of ['', 'v1', 'v1.a.b', 'v2.a.b.c', sealed.replace(/^v1/, 'v0')]) assert.throws(() => box.open(bad, 'ctx'), bad);
  });

  it('needs a 32-byte key', () => {
    assert.throws(() => createSecretBox(randomBytes(16)));
    assert.throws(() => createSecretBox(Buffer.alloc(0)));
  });
});

describe('key-encryption key', () => {
  it('uses the configured key when given', () => {
    const key = randomBytes(32);
    assert.deepEqual(loadKeyEncryptionKey(key.toString('base64'), '/nonexistent'), key);
  });

  it('creates an owner-only key file once, then reads the same key back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'latchkey-kek-'));
    try {
      const dataDir = join(dir, 'data');
      const first = loadKeyEncryptionKey(null, dataDir);
      assert.equal(first.length, 32);
      const file = join(dataDir, 'key-encryption.key');
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.deepEqual(loadKeyEncryptionKey(null, dataDir), first);
      assert.equal((await readFile(file, 'utf8')).trim(), first.toString('base64'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a key file that does not hold 32 bytes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'latchkey-kek-'));
    try {
      await writeFile(join(dir, 'key-encryption.key'), randomBytes(8).toString('base64'));
      assert.throws(() => loadKeyEncryptionKey(null, dir), /32-byte/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
