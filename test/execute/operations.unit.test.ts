import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../../src/errors/catalogue.js';
import { parseOperation } from '../../src/operations/parse-operation.js';

// The operation object as a client that writes every unset optional field as an explicit null,
// and adds members of its own, sends it inside the signed token: exact bytes, parsed as we do.
const USER = '0190A8E4-2222-7000-8000-000000000002';
const parse = (json: string) => parseOperation(JSON.parse(json));

function refused(json: string, field: RegExp): void {
  assert.throws(() => parse(json), (e: unknown) => {
    assert.ok(isAppError(e), String(e));
    assert.equal(e.status, 400);
    assert.equal(e.error, 'validation_failed');
    assert.match(e.message, field);
    return true;
  });
}

describe('parseOperation: explicit null is absent, unknown members are ignored', () => {
  it('MUTATE_LOCK with null duration and location and an unknown member', () => {
    assert.deepEqual(parse('{"type":"MUTATE_LOCK","locked":false,"duration":null,"location":null,"clientVersion":"1.2.3"}'), { type: 'MUTATE_LOCK', locked: false });
    assert.deepEqual(
      parse('{"type":"MUTATE_LOCK","locked":true,"duration":5,"location":{"latitude":51.5,"longitude":-0.12,"accuracy":12,"altitude":null}}'),
      { type: 'MUTATE_LOCK', locked: true, duration: 5, location: { latitude: 51.5, longitude: -0.12, accuracy: 12 } },
    );
  });

  it('ADD_USER with null role, start and end', () => {
    assert.deepEqual(parse(`{"type":"ADD_USER","user":"${USER}","publicKey":"AAAA","role":null,"start":null,"end":null,"extra":{"a":1}}`), {
      type: 'ADD_USER', user: USER.toLowerCase(), publicKey: 'AAAA',
    });
    assert.deepEqual(parse(`{"type":"ADD_USER","user":"${USER}","publicKey":"AAAA","role":"USER","start":null,"end":1800000000}`), {
      type: 'ADD_USER', user: USER.toLowerCase(), publicKey: 'AAAA', role: 'USER', end: 1800000000,
    });
  });

  it('MUTATE_SETTING with null unlockDuration, and a window with null exceptions and unknown members', () => {
    assert.deepEqual(
      parse('{"type":"MUTATE_SETTING","unlockDuration":null,"unlockBetween":{"start":"08:00","end":"18:00","timezone":"Europe/London","days":["MONDAY"],"exceptions":null,"note":"x"}}'),
      { type: 'MUTATE_SETTING', unlockBetween: { start: '08:00', end: '18:00', timezone: 'Europe/London', days: ['MONDAY'] } },
    );
    assert.deepEqual(parse('{"type":"MUTATE_SETTING","unlockDuration":7,"unlockBetween":null}'), { type: 'MUTATE_SETTING', unlockDuration: 7, unlockBetween: null });
    refused('{"type":"MUTATE_SETTING","unlockDuration":null}', /unlockDuration or unlockBetween/);
  });

  it('keeps type and bound checks of the known fields', () => {
    refused('{"type":"MUTATE_LOCK","locked":null}', /operation\.locked/);
    refused('{"type":"MUTATE_LOCK","locked":"false"}', /operation\.locked/);
    refused('{"type":"MUTATE_LOCK","locked":false,"duration":86401}', /operation\.duration/);
    refused('{"type":"MUTATE_LOCK","locked":false,"duration":"5"}', /operation\.duration/);
    refused('{"type":"MUTATE_LOCK","locked":false,"location":{"latitude":91,"longitude":0,"accuracy":1}}', /operation\.location/);
    refused(`{"type":"ADD_USER","user":null,"publicKey":"AAAA"}`, /operation\.user/);
    refused(`{"type":"ADD_USER","user":"${USER}","publicKey":"AAAA","start":-1}`, /operation\.start/);
    refused(`{"type":"ADD_USER","user":"${USER}","publicKey":"AAAA","role":"OWNER"}`, /operation\.role/);
    refused(`{"type":"REMOVE_USER","users":["${USER}",null]}`, /operation\.users\[1\]/);
    refused('{"type":"MUTATE_SETTING","unlockDuration":0}', /operation\.unlockDuration/);
    refused('{"type":"MUTATE_SETTING","unlockBetween":{"start":"08:00","end":"18:00","timezone":"Europe/London","days":["MONDAY"],"exceptions":[null]}}', /operation\.unlockBetween\.exceptions\[0\]/);
    refused('{"type":"MUTATE_SETTING","unlockBetween":{"start":"8am","end":"18:00","timezone":"Europe/London","days":["MONDAY"]}}', /operation\.unlockBetween\.start/);
    refused('{"type":"MUTATE_SETTING","unlockBetween":{"end":"18:00","timezone":"Europe/London","days":["MONDAY"]}}', /operation\.unlockBetween\.start: required/);
    refused('{"type":null}', /operation\.type/);
    refused('null', /operation must be an object/);
  });
});
