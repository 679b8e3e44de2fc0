import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { createApplication } from './helpers.js';

describe('CORS for registered application origins', () => {
  let t: TestService;
  let owner: TestUser;
  let applicationId: string;
  const allowed = 'https://web-app.example.com';
  before(async () => {
    t = await startTestService();
    owner = await createUser(t.api);
    applicationId = (await createApplication(t.api, owner)).applicationId;
    const res = await t.api.post(`/platform/application/${applicationId}/cors`, { token: owner.authToken, body: { url: allowed } });
    assert.equal(res.status, 204);
  });
  after(() => t.close());

  const preflight = (origin: string, path = '/account') =>
    t.api.request('OPTIONS', path, { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });

  it('allows a registered origin on ordinary requests, errors included', async () => {
    const ok = await t.api.get('/account', { token: owner.authToken, headers: { origin: allowed } });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), allowed);
    assert.match(ok.headers.get('vary') ?? '', /origin/i);
    const refused = await t.api.get('/account', { headers: { origin: allowed } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('access-control-allow-origin'), allowed);
  });

  it('answers the preflight of a registered origin', async () => {
    const res = await preflight(allowed);
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), allowed);
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /authorization/i);
    assert.equal((await preflight(allowed, `/platform/application/${applicationId}/key`)).status, 204);
  });

  it('gives other origins no CORS headers, preflight included', async () => {
    for (const origin of ['https://evil.example.com', 'http://web-app.example.com', 'https://web-app.example.com:8443', 'https://web-app.example.com.evil.com', 'null']) {
      const res = await t.api.get('/account', { token: owner.authToken, headers: { origin } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), null, origin);
      const pre = await preflight(origin);
      assert.equal(pre.status, 404, origin);
      assert.equal(pre.headers.get('access-control-allow-origin'), null, origin);
      assert.equal(pre.headers.get('access-control-allow-methods'), null, origin);
    }
  });

  it('stops allowing an origin once it is removed', async () => {
    const origin = 'http://localhost:5173';
    const path = `/platform/application/${applicationId}/cors`;
    assert.equal((await t.api.post(path, { token: owner.authToken, body: { url: origin } })).status, 204);
    assert.equal((await preflight(origin)).headers.get('access-control-allow-origin'), origin);
    assert.equal((await t.api.delete(path, { token: owner.authToken, body: { url: origin } })).status, 204);
    assert.equal((await preflight(origin)).headers.get('access-control-allow-origin'), null);
    assert.equal((await t.api.get('/time', { headers: { origin } })).headers.get('access-control-allow-origin'), null);
  });

  it('adds nothing to requests without an Origin but Vary, for caches', async () => {
    const res = await t.api.get('/time');
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.equal(res.headers.get('access-control-expose-headers'), null);
    assert.match(res.headers.get('vary') ?? '', /origin/i);
  });
});
