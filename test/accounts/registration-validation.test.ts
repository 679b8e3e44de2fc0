import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { uniqueEmail } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { assertError, usersWithEmail } from './support.js';

/** Bodies that must each be refused with a clean 400, and leave no account behind. */
function invalidBodies(email: string): Array<[string, unknown]> {
  return [
    ['missing email', { password: 'long enough' }],
    ['missing password', { email }],
    ['malformed email', { email: 'not-an-email', password: 'long enough' }],
    ['email with spaces', { email: `a b${email}`, password: 'long enough' }],
    ['email as a number', { email: 12345678, password: 'long enough' }],
    ['email as an object', { email: { address: email }, password: 'long enough' }],
    ['email as null', { email: null, password: 'long enough' }],
    ['password of 7 characters', { email, password: '1234567' }],
    ['empty password', { email, password: '' }],
    ['password as an object', { email, password: { secret: 'long enough' } }],
    ['password as an array', { email, password: ['long enough'] }],
    ['oversize email', { email: `${'a'.repeat(250)}@example.com`, password: 'long enough' }],
    ['oversize password', { email, password: 'p'.repeat(1025) }],
    ['empty display name', { email, password: 'long enough', displayName: '' }],
    ['oversize display name', { email, password: 'long enough', displayName: 'n'.repeat(256) }],
    ['display name as an object', { email, password: 'long enough', displayName: { first: 'Ada' } }],
    ['display name with NUL', { email, password: 'long enough', displayName: 'Ada\u0000Lovelace' }],
    ['a JSON array', [email, 'long enough']],
    ['a JSON string', 'hello'],
    ['JSON null', null],
  ];
}

describe('registration input validation', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  for (const version of [1, 3]) {
    it(`v${version}: refuses every malformed body with 400 {code, message}`, async () => {
      const email = uniqueEmail(`invalid-v${version}`);
      for (const [label, body] of invalidBodies(email)) {
        const res = await t.api.post('/auth/register', { version, rawBody: JSON.stringify(body) });
        assert.equal(res.status, 400, `${label}: ${res.status} ${res.text}`);
        assertError(res, 400);
      }
      assert.equal((await usersWithEmail(t, email)).length, 0);
    });
  }

  it('accepts a password of exactly 8 characters', async () => {
    const res = await t.api.post('/auth/register', { body: { email: uniqueEmail('eight'), password: '12345678' } });
    assert.equal(res.status, 200, res.text);
  });

  it('refuses malformed JSON, an empty body and no body with 400', async () => {
    for (const rawBody of ['{"email": "a@example.com", "password": ', '{bad json}', '', '   ']) {
      assertError(await t.api.post('/auth/register', { rawBody }), 400);
    }
    assertError(await t.api.post('/auth/register'), 400);
  });

  it('refuses a body over 64 KiB with a clean 400', async () => {
    const res = await t.api.post('/auth/register', { body: { email: uniqueEmail('huge'), password: 'x'.repeat(70 * 1024) } });
    assertError(res, 400);
  });

  it('takes a null displayName as none given', async () => {
    const res = await t.api.post('/auth/register', { version: 3, body: { email: uniqueEmail('null-name'), password: 'long enough', displayName: null } });
    assert.equal(res.status, 200);
    const account = await t.api.get('/account', { token: res.body.authToken });
    assert.equal(account.body.displayName, null);
  });

  it('refuses a non-boolean force with 400', async () => {
    const res = await t.api.post('/auth/register?force=maybe', { version: 2, body: { email: uniqueEmail('force'), password: 'long enough' } });
    assertError(res, 400);
  });

  it('refuses a form-encoded body with a clean 4xx', async () => {
    const res = await t.api.post('/auth/register', { rawBody: 'email=a%40example.com&password=longenough', contentType: 'application/x-www-form-urlencoded' });
    assertError(res, 415);
  });
});
