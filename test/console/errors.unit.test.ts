import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, endsSession, plainWords } from '../../console/src/api/errors.js';

/** How the console reads the service's errors (issue 29): which 401s end a session, and messages in plain words. */
describe('the console reading an error', () => {
  it('ends the session only on a 401 that says so (or says nothing)', () => {
    assert.equal(endsSession(401, 'unauthenticated'), true);
    assert.equal(endsSession(401, undefined), true, 'a proxy\'s bare 401');
    for (const code of ['verification_failed', 'token_expired', 'token_not_yet_valid', 'bad_signature', 'bad_credentials']) assert.equal(endsSession(401, code), false, code);
    assert.equal(endsSession(403, 'unauthenticated'), false);
  });

  it('says what a wrong code or a clock problem is, and gives field errors without their paths', () => {
    assert.match(new ApiError(401, 'verification signature does not match a pending code', '401', 'verification_failed').message, /^That code is not right/);
    assert.match(new ApiError(401, 'operation token expired', '401', 'token_expired').message, /clock/);
    assert.equal(plainWords('body/password must NOT have fewer than 8 characters'), 'Password must have at least 8 characters');
    assert.equal(plainWords('body/unlockDuration must be >= 1'), 'Unlock duration must be >= 1');
    assert.equal(plainWords('body/email must match format "email"'), 'Email must be an email address');
    assert.equal(plainWords("outside the share's weekly hours"), "outside the share's weekly hours", 'a sentence is left as it is');
    assert.equal(new ApiError(0, undefined).message, 'The service cannot be reached. Check your connection and try again.');
    assert.doesNotMatch(new ApiError(418, 'teapot').message, /\(418\)/);
  });
});
