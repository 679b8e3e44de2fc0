import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { uniqueEmail } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { assertError } from './support.js';

const AUTH_REQUESTS_PER_IP = 4;

describe('authentication requests per IP (RATE_AUTH_PER_IP)', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ RATE_AUTH_PER_IP: String(AUTH_REQUESTS_PER_IP), RATE_LOGIN_FAILURES_PER_ACCOUNT: '1000' });
  });
  after(() => t.close());

  it('answers 429 with Retry-After once one address has used its allowance, on every auth endpoint', async () => {
    const email = uniqueEmail('ip');
    const password = 'long enough';
    const registered = await t.api.post('/auth/register', { version: 3, body: { email, password } });
    assert.equal(registered.status, 200);
    // Different accounts, so only the per-IP limit can be what stops them.
    for (let i = 1; i < AUTH_REQUESTS_PER_IP; i += 1) {
      assertError(await t.api.post('/auth/token', { body: { email: uniqueEmail('ip-other'), password } }), 401);
    }
    const refused = [
      await t.api.post('/auth/token', { body: { email, password } }),
      await t.api.post('/auth/register', { body: { email: uniqueEmail('ip-new'), password } }),
      await t.api.post('/auth/token/refresh', { token: registered.body.refreshToken }),
      await t.api.put('/account/email/verify?code=whatever'),
    ];
    for (const res of refused) {
      assertError(res, 429);
      assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    }
    // Ordinary authenticated requests are not authentication requests.
    assert.equal((await t.api.get('/account', { token: registered.body.authToken })).status, 200);
  });
});
