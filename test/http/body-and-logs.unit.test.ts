import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containsNul } from '../../src/http/body-parsing.js';
import { redactUrl } from '../../src/http/request-log.js';

describe('containsNul', () => {
  it('finds a NUL in strings, keys, arrays and nested objects', () => {
    assert.equal(containsNul('a\u0000b'), true);
    assert.equal(containsNul({ ['k\u0000']: 1 }), true);
    assert.equal(containsNul([1, 'x', ['\u0000']]), true);
    assert.equal(containsNul({ a: { b: [{ c: '\u0000' }] } }), true);
  });

  it('passes everything else, the text "\\u0000" included', () => {
    for (const value of [null, undefined, 0, true, '', 'plain', '\\u0000', { a: [1, 'two', { three: null }] }, []]) assert.equal(containsNul(value), false, JSON.stringify(value));
  });
});

describe('redactUrl', () => {
  it('hides the values of secret-bearing query parameters, whatever their case', () => {
    assert.equal(redactUrl('/account/email/verify?code=abc'), '/account/email/verify?code=[redacted]');
    assert.equal(redactUrl('/u?x=1&Code=abc&y=2'), '/u?x=1&Code=[redacted]&y=2');
    assert.equal(redactUrl('/u?token=t&signature=s&key=k&secret=z&password=p'), '/u?token=[redacted]&signature=[redacted]&key=[redacted]&secret=[redacted]&password=[redacted]');
  });

  it('leaves other URLs alone', () => {
    for (const url of ['/account', '/device/events?device=a&device=b', '/x?code', '/x?', '/x?codes=1']) assert.equal(redactUrl(url), url);
  });
});
