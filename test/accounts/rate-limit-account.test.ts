import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import type { ApiResponse } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { assertError } from './support.js';

const FAILURES_ALLOWED = 3;

function assertTooMany(res: ApiResponse): void {
  assertError(res, 429);
  const retryAfter = res.headers.get('retry-after');
  assert.match(retryAfter ?? '', /^\d+$/, 'Retry-After is a whole number of seconds');
  assert.ok(Number(retryAfter) >= 1);
}

describe('failed logins per account (RATE_LOGIN_FAILURES_PER_ACCOUNT)', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ RATE_LOGIN_FAILURES_PER_ACCOUNT: String(FAILURES_ALLOWED), RATE_AUTH_PER_IP: '100000' });
  });
  after(() => t.close());

  it('after the allowed failures the account answers 429 with Retry-After, even to the right password', async () => {
    const user = await createUser(t.api);
    for (let i = 0; i < FAILURES_ALLOWED; i += 1) {
      assertError(await t.api.post('/auth/token', { body: { email: user.email, password: `wrong ${i}` } }), 401);
    }
    assertTooMany(await t.api.post('/auth/token', { body: { email: user.email, password: 'wrong again' } }));
    assertTooMany(await t.api.post('/auth/token', { body: { email: user.email, password: user.password } }));
    assertTooMany(await t.api.post('/auth/token', { body: { email: user.email.toUpperCase(), password: user.password } }));
    // Sessions that already exist are not affected.
    assert.equal((await t.api.get('/account', { token: user.authToken })).status, 200);
  });

  it('parallel guesses cannot overrun the limit', async () => {
    const user = await createUser(t.api);
    const attempts = await Promise.all(Array.from({ length: 12 }, (_, i) => t.api.post('/auth/token', { body: { email: user.email, password: `guess ${i}` } })));
    const statuses = attempts.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 401).length, FAILURES_ALLOWED, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 12 - FAILURES_ALLOWED, statuses.join(','));
  });

  it('counts per account: another account is unaffected', async () => {
    const victim = await createUser(t.api);
    const other = await createUser(t.api);
    for (let i = 0; i <= FAILURES_ALLOWED; i += 1) await t.api.post('/auth/token', { body: { email: victim.email, password: 'wrong' } });
    const res = await t.api.post('/auth/token', { body: { email: other.email, password: other.password } });
    assert.equal(res.status, 200, res.text);
  });

  it('a successful login clears the failures', async () => {
    const user = await createUser(t.api);
    for (let round = 0; round < 2; round += 1) {
      for (let i = 0; i < FAILURES_ALLOWED - 1; i += 1) {
        assertError(await t.api.post('/auth/token', { body: { email: user.email, password: 'wrong' } }), 401);
      }
      assert.equal((await t.api.post('/auth/token', { version: 2, body: { email: user.email, password: user.password } })).status, 200);
    }
  });

  it('unknown emails are limited the same way (no hint that they do not exist)', async () => {
    const email = `nobody-${process.pid}-${Date.now()}@example.com`;
    for (let i = 0; i < FAILURES_ALLOWED; i += 1) assertError(await t.api.post('/auth/token', { body: { email, password: 'wrong' } }), 401);
    assertTooMany(await t.api.post('/auth/token', { body: { email, password: 'wrong' } }));
  });

  it('wrong old passwords on POST /account/password are limited too', async () => {
    const user = await createUser(t.api);
    for (let i = 0; i < FAILURES_ALLOWED; i += 1) {
      assertError(await t.api.post('/account/password', { token: user.authToken, body: { oldPassword: 'wrong', newPassword: 'a new password' } }), 403);
    }
    assertTooMany(await t.api.post('/account/password', { token: user.authToken, body: { oldPassword: user.password, newPassword: 'a new password' } }));
    // The password did not change.
    assert.equal((await t.api.post('/auth/token', { body: { email: user.email, password: user.password } })).status, 200);
  });
});
