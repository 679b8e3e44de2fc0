import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requireDirectUser } from '../../src/applications/policy.js';
import { readIdentityClaims } from '../../src/applications/token-claims.js';
import { isAppError } from '../../src/errors/catalogue.js';

const base = { sub: 'user-1', exp: 2_000_000_000, iat: 1_700_000_000 };
const is401 = (err: unknown) => isAppError(err) && err.status === 401;

describe('third-party token claims', () => {
  it('reads the user claims, with verified flags defaulting to false', () => {
    assert.deepEqual(readIdentityClaims({ ...base, email: 'a@example.com', telephone: '+447700900123', name: 'Ada' }), {
      sub: 'user-1',
      exp: base.exp,
      iat: base.iat,
      email: 'a@example.com',
      emailVerified: false,
      telephone: '+447700900123',
      telephoneVerified: false,
      name: 'Ada',
    });
    const claims = readIdentityClaims({ ...base, email: 'a@example.com', email_verified: true, telephone: '+15551234567', telephone_verified: 'true' });
    assert.equal(claims.emailVerified, true);
    assert.equal(claims.telephoneVerified, true);
  });

  it('builds a name from its parts when name is absent', () => {
    assert.equal(readIdentityClaims({ ...base, given_name: 'Ada', family_name: 'Lovelace' }).name, 'Ada Lovelace');
    assert.equal(readIdentityClaims(base).name, null);
  });

  it('limits sub to 1024 bytes', () => {
    assert.equal(readIdentityClaims({ ...base, sub: 'é'.repeat(512) }).sub.length, 512);
    assert.throws(() => readIdentityClaims({ ...base, sub: 'é'.repeat(513) }), is401);
    assert.throws(() => readIdentityClaims({ ...base, sub: '' }), is401);
    assert.throws(() => readIdentityClaims({ ...base, sub: undefined }), is401);
  });

  it('refuses claims of the wrong type', () => {
    for (const bad of [{ email: 42 }, { email: 'not-an-email' }, { telephone: '07700900123' }, { email: 'a@b.c', email_verified: 'yes' }, { name: 'x'.repeat(256) }, { auth_time: 'now' }, { picture: 5 }]) {
      assert.throws(() => readIdentityClaims({ ...base, ...bad }), is401, JSON.stringify(bad));
    }
  });
});

describe('platform policy', () => {
  const caller = { userId: 'u', sessionId: 's', namespace: 'direct', applicationId: null, email: null, emailVerified: false, telephone: null, telephoneVerified: false, displayName: null, publicKey: null };
  it('lets direct users in and keeps application users out (403)', () => {
    assert.doesNotThrow(() => requireDirectUser(caller));
    assert.throws(() => requireDirectUser({ ...caller, sessionId: null, namespace: 'app', applicationId: 'app' }), (err: unknown) => isAppError(err) && err.status === 403);
  });
});
