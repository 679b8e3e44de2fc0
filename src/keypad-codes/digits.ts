import type { SecretBox } from '../crypto/secret-box.js';

/** How a code's digits are kept: sealed with the key-encryption key, bound to the code. */
export const sealContext = (codeId: string) => `keypad-code:${codeId}`;

/** The keyed digest that finds equal live codes on one lock without storing the digits. */
export function digestOf(box: SecretBox, lockId: string, digits: string): string {
  return box.digest(`${lockId}:${digits}`, 'keypad-code');
}
