import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isValidTopicPrefix } from '../../src/mqtt/topic-names.js';

describe('topic prefixes', () => {
  it('accepts levels without wildcards, and refuses empty levels, wildcards and $-topics', () => {
    assert.equal(isValidTopicPrefix('locks'), true);
    assert.equal(isValidTopicPrefix('acme/locks'), true);
    for (const prefix of ['', '/locks', 'locks/', 'a//b', 'locks/#', 'locks/+', '$SYS', 'lo\u0000cks']) assert.equal(isValidTopicPrefix(prefix), false, JSON.stringify(prefix));
  });
});
