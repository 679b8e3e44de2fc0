import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { isAppError } from '../../src/errors/catalogue.js';
import { checkOperationClaims, replayKey, type OperationClaims } from '../../src/operations/claims.js';

const NOW = 1_800_000_000;
const USER = '0190a8e4-1111-7000-8000-000000000001';
const OTHER = '0190a8e4-2222-7000-8000-000000000002';
const LOCK = '0190a8e4-3333-7000-8000-000000000003';
const WINDOW = { start: '08:00', end: '18:00', timezone: 'Europe/London', days: ['MONDAY', 'FRIDAY'] };

const payload = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  iss: USER, sub: LOCK, iat: NOW, nbf: NOW, exp: NOW + 60, operation: { type: 'MUTATE_LOCK', locked: false }, ...over,
});
const check = (p: Record<string, unknown>): OperationClaims => checkOperationClaims(p, { lockId: LOCK, callerUserId: USER, now: NOW });
const operation = (op: Record<string, unknown>, over: Record<string, unknown> = {}) => check(payload({ operation: op, exp: NOW + 3600, ...over })).operation;

function failsWith(status: number, p: Record<string, unknown>, message?: RegExp, error?: string): void {
  assert.throws(() => check(p), (e: unknown) => {
    assert.ok(isAppError(e), String(e));
    assert.equal(e.status, status, e.message);
    if (message) assert.match(e.message, message);
    if (error) assert.equal(e.error, error);
    return true;
  });
}

describe('checkOperationClaims', () => {
  it('returns typed claims for a valid MUTATE_LOCK', () => {
    const claims = check(payload({ jti: 'abc', operation: { type: 'MUTATE_LOCK', locked: false, duration: 10, extra: 'ignored' } }));
    assert.deepEqual(claims, { iss: USER, sub: LOCK, iat: NOW, nbf: NOW, exp: NOW + 60, jti: 'abc', operation: { type: 'MUTATE_LOCK', locked: false, duration: 10 } });
  });

  it('compares ids without regard to case and accepts a missing nbf', () => {
    const claims = checkOperationClaims(payload({ iss: USER.toUpperCase(), sub: LOCK.toUpperCase(), nbf: undefined }), { lockId: LOCK, callerUserId: USER, now: NOW });
    assert.equal(claims.nbf, undefined);
  });

  it('rejects sub other than the lock (400) and iss other than the caller (403)', () => {
    failsWith(400, payload({ sub: OTHER }), /sub/);
    failsWith(400, payload({ sub: undefined }), /sub/);
    failsWith(400, payload({ iss: 7 }), /iss/);
    failsWith(403, payload({ iss: OTHER }), /iss/);
    assert.equal(checkOperationClaims(payload({ iss: OTHER }), { lockId: LOCK, now: NOW }).iss, OTHER);
  });

  it('rejects an expired token with 401', () => {
    failsWith(401, payload({ iat: NOW - 60, exp: NOW - 1 }), /expired/, 'token_expired');
    failsWith(401, payload({ iat: NOW - 60, exp: NOW }), /expired/);
  });

  it('rejects nbf or iat in the future beyond the tolerance with 401', () => {
    failsWith(401, payload({ nbf: NOW + 31, exp: NOW + 90 }), /nbf/, 'token_not_yet_valid');
    assert.equal(check(payload({ nbf: NOW + 30, exp: NOW + 60 })).nbf, NOW + 30);
    failsWith(401, payload({ iat: NOW + 31, nbf: NOW, exp: NOW + 91 }), /iat/);
  });

  it('refuses a now that is not Unix seconds', () => {
    assert.throws(() => checkOperationClaims(payload(), { lockId: LOCK, now: Number.NaN }), TypeError);
    assert.throws(() => checkOperationClaims(payload(), { lockId: LOCK, now: NOW * 1000 }), TypeError);
  });

  it('requires numeric iat and exp', () => {
    failsWith(400, payload({ iat: undefined }), /iat/);
    failsWith(400, payload({ exp: String(NOW + 60) }), /exp/);
    failsWith(400, payload({ nbf: null }), /nbf/);
    failsWith(400, payload({ jti: 12 }), /jti/);
  });

  it('limits the lifetime: an hour + tolerance for MUTATE_LOCK (queued past a minute), 30 days otherwise', () => {
    failsWith(400, payload({ exp: NOW + 3631 }), /exp - iat/);
    assert.equal(check(payload({ exp: NOW + 3630 })).exp, NOW + 3630);
    const addUser = { type: 'ADD_USER', user: OTHER, publicKey: 'AAAA' };
    assert.equal(check(payload({ exp: NOW + 30 * 86400, operation: addUser })).operation.type, 'ADD_USER');
    failsWith(400, payload({ exp: NOW + 31 * 86400, operation: addUser }), /exp - iat/);
    failsWith(400, payload({ iat: NOW + 10, exp: NOW + 5 }), /iat/);
  });

  it('keeps a MUTATE_LOCK token within an hour + tolerance of now, even with iat ahead by the tolerance', () => {
    failsWith(400, payload({ iat: NOW + 30, nbf: undefined, exp: NOW + 3631 }), /exp must be at most 3630 seconds from now/);
    assert.equal(check(payload({ iat: NOW + 30, nbf: undefined, exp: NOW + 3630 })).exp, NOW + 3630);
  });

  it('rejects a missing or unknown operation type', () => {
    failsWith(400, payload({ operation: undefined }), /operation must be an object/);
    failsWith(400, payload({ operation: { type: 'OPEN_SESAME' } }), /operation.type must be one of/);
    failsWith(400, payload({ operation: { type: 'toString' } }), /operation.type/);
    failsWith(400, payload({ operation: { type: 'MUTATE_LOCK' } }), /operation.locked/);
    failsWith(400, payload({ operation: { type: 'MUTATE_LOCK', locked: false, duration: 1.5 } }), /duration/);
  });

  it('validates ADD_USER', () => {
    // An explicit null start is an absent one: from now.
    assert.deepEqual(operation({ type: 'ADD_USER', user: OTHER.toUpperCase(), publicKey: 'AAAA', role: 'ADMIN', start: null, end: NOW + 100 }), {
      type: 'ADD_USER', user: OTHER, publicKey: 'AAAA', role: 'ADMIN', end: NOW + 100,
    });
    assert.deepEqual(operation({ type: 'ADD_USER', user: OTHER, publicKey: 'AAAA' }), { type: 'ADD_USER', user: OTHER, publicKey: 'AAAA' });
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ user: 'bob' }, /operation.user/],
      [{ publicKey: undefined }, /publicKey/],
      [{ publicKey: 'not base64!' }, /publicKey/],
      [{ role: 'OWNER' }, /role/],
      [{ start: NOW + 10, end: NOW }, /end/],
      [{ start: 'soon' }, /start/],
    ];
    for (const [over, message] of bad) failsWith(400, payload({ exp: NOW + 3600, operation: { type: 'ADD_USER', user: OTHER, publicKey: 'AAAA', ...over } }), message);
  });

  it('validates REMOVE_USER', () => {
    assert.deepEqual(operation({ type: 'REMOVE_USER', users: [OTHER, OTHER.toUpperCase(), USER] }), { type: 'REMOVE_USER', users: [OTHER, USER] });
    failsWith(400, payload({ exp: NOW + 3600, operation: { type: 'REMOVE_USER', users: [] } }), /users/);
    failsWith(400, payload({ exp: NOW + 3600, operation: { type: 'REMOVE_USER', users: OTHER } }), /users/);
    failsWith(400, payload({ exp: NOW + 3600, operation: { type: 'REMOVE_USER', users: [OTHER, 'x'] } }), /users\[1\]/);
  });

  it('validates MUTATE_SETTING', () => {
    assert.deepEqual(operation({ type: 'MUTATE_SETTING', unlockDuration: 7 }), { type: 'MUTATE_SETTING', unlockDuration: 7 });
    assert.deepEqual(operation({ type: 'MUTATE_SETTING', unlockBetween: null }), { type: 'MUTATE_SETTING', unlockBetween: null });
    assert.deepEqual(operation({ type: 'MUTATE_SETTING', unlockBetween: WINDOW }), { type: 'MUTATE_SETTING', unlockBetween: WINDOW });
    const bad: [Record<string, unknown>, RegExp][] = [
      [{}, /unlockDuration or unlockBetween/],
      [{ unlockDuration: 0 }, /unlockDuration/],
      [{ unlockBetween: { ...WINDOW, timezone: 'Mars/Olympus' } }, /timezone/],
      [{ unlockBetween: { ...WINDOW, start: '25:00' } }, /start/],
      [{ unlockBetween: { ...WINDOW, exceptions: ['2025-02-30'] } }, /exceptions/],
    ];
    for (const [over, message] of bad) failsWith(400, payload({ exp: NOW + 3600, operation: { type: 'MUTATE_SETTING', ...over } }), message);
  });

  it('passes a well-formed location through and rejects a malformed one', () => {
    const location = { latitude: 51.5, longitude: -0.12, accuracy: 12 };
    assert.deepEqual(check(payload({ operation: { type: 'MUTATE_LOCK', locked: false, location } })).operation.location, location);
    failsWith(400, payload({ operation: { type: 'MUTATE_LOCK', locked: false, location: { ...location, latitude: 91 } } }), /location/);
    failsWith(400, payload({ operation: { type: 'MUTATE_LOCK', locked: false, location: { latitude: 1, longitude: 1 } } }), /location/);
  });
});

describe('replayKey', () => {
  const compact = 'eyJhbGciOiJFZERTQSJ9.eyJpc3MiOiJ4In0.3q2-7w';

  const issuer = '7D6E1F0A-0000-4000-8000-000000000001';

  it('is the issuer with the jti when present', () => {
    assert.equal(replayKey({ jti: 'request-1' }, compact, issuer), `${issuer.toLowerCase()}:request-1`);
    assert.notEqual(replayKey({ jti: 'request-1' }, compact, 'another'), replayKey({ jti: 'request-1' }, compact, issuer));
  });

  it('is the issuer with the SHA-256 of the token otherwise, the same however the signature is encoded', () => {
    const expected = `${issuer.toLowerCase()}:${createHash('sha256').update(compact).digest('hex')}`;
    assert.equal(replayKey({}, compact, issuer), expected);
    assert.equal(replayKey({}, 'eyJhbGciOiJFZERTQSJ9.eyJpc3MiOiJ4In0.3q2+7w==', issuer), expected);
    assert.notEqual(replayKey({}, 'eyJhbGciOiJFZERTQSJ9.eyJpc3MiOiJ5In0.3q2-7w', issuer), expected);
  });
});
