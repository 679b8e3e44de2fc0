import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Encrypts secrets at rest (private keys, CA keys) with AES-256-GCM under the key-encryption key.
 * `context` is bound as additional data, so a sealed value cannot be moved to another row.
 */
export interface SecretBox {
  seal(plaintext: Buffer | string, context: string): string;
  open(sealed: string, context: string): Buffer;
  /**
   * A keyed digest (HMAC-SHA256, Base64url) of `value` under a key derived from the
   * key-encryption key for `context`: equal values compare equal without being stored, and a
   * short secret (a keypad code) cannot be found from its digest without the key.
   */
  digest(value: string, context: string): string;
}

const FORMAT = 'v1';
const TAG_BYTES = 16;

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('key-encryption key must be 32 bytes');
  // Never the sealing key itself: a key of its own for digests.
  const digestKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'latchkey secret-box digest v1', 32));
  return {
    digest(value, context) {
      return createHmac('sha256', digestKey).update(`${context}\u0000${value}`).digest('base64url');
    },
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return [FORMAT, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [format, iv, tag, body] = sealed.split('.');
      if (format !== FORMAT || !iv || !tag || body === undefined) throw new Error('sealed value has an unknown format');
      // A fixed tag length: GCM would otherwise accept a tag truncated to 4 bytes.
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
    },
  };
}

/**
 * The key-encryption key: from configuration when given (required for several instances), else
 * a key file in the data directory, created on first start with owner-only permissions.
 */
export function loadKeyEncryptionKey(configured: string | null, dataDir: string): Buffer {
  if (configured) return Buffer.from(configured, 'base64');
  const file = join(dataDir, 'key-encryption.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  }
  chmodSync(file, 0o600);
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte Base64 key`);
  return key;
}
