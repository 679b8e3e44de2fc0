import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../../src/crypto/random.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newId', () => {
  it('is a UUID version 7 with the RFC 9562 variant', () => {
    for (let i = 0; i < 1000; i++) assert.match(newId(), UUID_V7);
  });

  it('starts with the 48-bit millisecond time, so ids sort by creation time', () => {
    const at = Date.UTC(2030, 0, 1);
    assert.equal(newId(at).replace(/-/g, '').slice(0, 12), at.toString(16).padStart(12, '0'));
    assert.ok(newId(at) < newId(at + 1));
    assert.equal(newId(0).slice(0, 13), '00000000-0000');
  });

  it('differs in its random part between ids of the same millisecond', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId(1_700_000_000_000)));
    assert.equal(ids.size, 10_000);
  });
});
