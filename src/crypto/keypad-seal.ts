import { createHash, hkdfSync } from 'node:crypto';
import { createSecretBox, type SecretBox } from './secret-box.js';

/**
 * Keypad codes on their way to a lock (device protocol 1.5, docs/device-protocol.md §3 "Codes"):
 * sealed for that lock alone, so neither the broker nor anyone reading the retained config learns
 * them. The key is derived from the lock's device secret as the service stores it (its SHA-256),
 * which the lock computes from the secret it holds: AES-256-GCM under
 * HKDF-SHA256(SHA-256(secret), salt = lock id, info = "latchkey keypad codes v1"), with
 * `{lockId}:{codeId}` as associated data, so a sealed code cannot be moved to another lock or code.
 */

const INFO = 'latchkey keypad codes v1';

/** The lock's keypad key from the stored SHA-256 (hex) of its device secret. */
export function keypadBoxFromSecretHash(secretHashHex: string, lockId: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secretHashHex, 'hex'), Buffer.from(lockId.toLowerCase()), INFO, 32));
  return createSecretBox(key);
}

/** The same key, on the lock, from the device secret itself. */
export function keypadBoxFromSecret(secret: string, lockId: string): SecretBox {
  return keypadBoxFromSecretHash(createHash('sha256').update(secret, 'utf8').digest('hex'), lockId);
}

/** The associated data binding a sealed code to its lock and code. */
export function keypadSealContext(lockId: string, codeId: string): string {
  return `${lockId.toLowerCase()}:${codeId.toLowerCase()}`;
}
