import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBase64Any } from '../../src/crypto/base64.js';

describe('decodeBase64Any', () => {
  it('accepts both alphabets with and without padding', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xfe, 0x01]);
    for (const text of ['+//+AQ==', '+//+AQ', '-__-AQ', '-__-AQ==']) assert.deepEqual(decodeBase64Any(text), bytes);
  });

  it('refuses characters outside Base64 and impossible lengths or padding', () => {
    for (const text of ['ab cd', 'ab.c', 'abcde', 'ab=c', 'abc==', 'a===']) assert.equal(decodeBase64Any(text), null, text);
  });
});
