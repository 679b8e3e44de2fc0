import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLegacyUser } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';

describe('service smoke', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  it('serves the time without authentication', async () => {
    const res = await t.api.get('/time');
    assert.equal(res.status, 200);
    assert.ok(Math.abs(res.body.now - Date.now()) < 60_000);
  });

  it('registers and reads the account', async () => {
    const user = await createLegacyUser(t.api);
    const res = await t.api.get('/account', { token: user.authToken });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { publicKey: user.publicKey, email: user.email, displayName: user.displayName, emailVerified: false });
  });
});
