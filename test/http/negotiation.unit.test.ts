import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { negotiate, pickVersion } from '../../src/http/negotiation.js';

describe('negotiate', () => {
  it('no Accept, an empty one and JSON wildcards mean v1 JSON', () => {
    for (const accept of [undefined, '', '  ', '*/*', 'application/*', 'application/json', 'APPLICATION/JSON', 'application/json; charset=utf-8', 'application/ld+json']) {
      const n = negotiate(accept);
      assert.equal(n.version, 1, String(accept));
      assert.equal(n.acceptsJson, true, String(accept));
    }
  });

  it('a versioned media type selects its version, whatever the vendor', () => {
    assert.equal(negotiate('application/vnd.doordeck.api-v2+json').version, 2);
    assert.equal(negotiate('application/vnd.latchkey.api-v3+json').version, 3);
    assert.equal(negotiate('application/vnd.service.api-v12+json').version, 12);
    assert.equal(negotiate('Application/VND.Doordeck.API-V2+JSON').version, 2);
  });

  it('the versioned type wins over application/json listed beside it, in any order', () => {
    assert.equal(negotiate('application/json, application/vnd.doordeck.api-v2+json').version, 2);
    assert.equal(negotiate('application/vnd.doordeck.api-v2+json;q=0.5, application/json').version, 2);
  });

  it('the highest of several versioned types is taken', () => {
    assert.equal(negotiate('application/vnd.x.api-v2+json, application/vnd.x.api-v3+json').version, 3);
  });

  it('an Accept with no JSON at all is not acceptable', () => {
    for (const accept of ['text/html', 'text/plain, image/png', 'application/xml', 'text/*']) assert.equal(negotiate(accept).acceptsJson, false, accept);
  });

  it('a range with q=0 is refused, not accepted', () => {
    assert.equal(negotiate('application/json;q=0').acceptsJson, false);
    assert.equal(negotiate('application/json; q=0.0, text/html').acceptsJson, false);
    assert.equal(negotiate('application/vnd.x.api-v2+json;q=0, application/json').version, 1);
    assert.equal(negotiate('application/json;q=0.1').acceptsJson, true);
  });

  it('a malformed version is no version', () => {
    assert.equal(negotiate('application/vnd.x.api-vX+json').version, 1);
    assert.equal(negotiate('application/vnd.x.api-v0+json').version, 1);
    assert.deepEqual(negotiate('application/vnd.x.api-v99999+json'), { version: 1, acceptsJson: true, acceptsEventStream: false });
  });

  it('tells whether an event stream is acceptable', () => {
    assert.equal(negotiate('text/event-stream').acceptsEventStream, true);
    assert.equal(negotiate('text/event-stream').acceptsJson, false);
    assert.equal(negotiate('*/*').acceptsEventStream, true);
    assert.equal(negotiate('application/json').acceptsEventStream, false);
  });
});

describe('pickVersion', () => {
  it('picks the requested version when the endpoint has it', () => {
    assert.equal(pickVersion(2, [1, 2, 3]), 2);
    assert.equal(pickVersion(1, [1, 2]), 1);
  });

  it('falls back to the highest version below the requested one', () => {
    assert.equal(pickVersion(9, [1, 2, 3]), 3);
    assert.equal(pickVersion(3, [1, 2]), 2);
    assert.equal(pickVersion(4, [1, 3]), 3);
    assert.equal(pickVersion(2, [1, 3]), 1);
  });

  it('answers the lowest version when nothing is low enough', () => {
    assert.equal(pickVersion(1, [2, 3]), 2);
  });
});
