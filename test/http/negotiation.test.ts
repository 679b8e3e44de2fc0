import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uniqueEmail } from '../helpers/factories.js';
import type { ApiResponse } from '../helpers/http.js';
import { useService } from '../helpers/service.js';

function assertJsonError(res: ApiResponse, status: number): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(Math.floor(res.body.code), status);
  assert.equal(typeof res.body.message, 'string');
}

describe('content negotiation (decisions §1)', () => {
  const t = useService({ withUser: true });

  it('an Accept that admits no JSON answers 406 with a JSON error body', async () => {
    for (const accept of ['text/html', 'text/plain', 'application/xml', 'image/png, text/html;q=0.9', 'application/json;q=0']) {
      assertJsonError(await t.api.get('/account', { token: t.user.authToken, accept }), 406);
      assertJsonError(await t.api.get('/time', { accept }), 406);
    }
    assertJsonError(await t.api.post('/auth/token', { accept: 'text/html', body: { email: t.user.email, password: t.user.password } }), 406);
  });

  it('406 comes before authentication and before the body is read', async () => {
    assertJsonError(await t.api.get('/account', { accept: 'text/html' }), 406);
    assertJsonError(await t.api.post('/auth/register', { accept: 'text/html', rawBody: '{broken' }), 406);
  });

  it('no Accept, */*, application/*, application/json and +json types are answered with JSON', async () => {
    for (const accept of [undefined, '', '*/*', 'application/*', 'application/json', 'application/json; charset=utf-8', 'text/html, */*;q=0.1', 'application/problem+json']) {
      const res = await t.api.get('/account', { token: t.user.authToken, ...(accept === undefined ? {} : { headers: { accept } }) });
      assert.equal(res.status, 200, `Accept ${accept}: ${res.text}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    }
  });

  it('a versioned media type is JSON too, whatever the vendor segment says', async () => {
    for (const vendor of ['doordeck', 'latchkey', 'service']) {
      const res = await t.api.get('/account', { token: t.user.authToken, accept: `application/vnd.${vendor}.api-v2+json` });
      assert.equal(res.status, 200, res.text);
    }
  });

  it('an endpoint without version N answers with its highest version below N', async () => {
    const v9 = await t.api.post('/auth/register', { accept: 'application/vnd.doordeck.api-v9+json', body: { email: uniqueEmail('neg-v9'), password: 'long enough' } });
    assert.equal(v9.status, 200);
    assert.ok(!('privateKey' in v9.body), 'v9 registration behaves as v3');
    const login = await t.api.post('/auth/token', { accept: 'application/vnd.doordeck.api-v9+json', body: { email: t.user.email, password: t.user.password } });
    assert.ok(!('privateKey' in login.body), 'v9 login behaves as v2');
    const account = await t.api.get('/account', { token: t.user.authToken, accept: 'application/vnd.doordeck.api-v9+json' });
    assert.equal(account.status, 200, 'an unversioned endpoint answers every version');
  });

  it('versioned plus application/json: the versioned type wins', async () => {
    const res = await t.api.post('/auth/token', { accept: 'application/json, application/vnd.doordeck.api-v2+json', body: { email: t.user.email, password: t.user.password } });
    assert.equal(res.status, 200);
    assert.ok(!('privateKey' in res.body));
  });

  it('an unparseable versioned type is not a version (v1 applies)', async () => {
    const res = await t.api.post('/auth/token', { accept: 'application/vnd.doordeck.api-vX+json, application/json', body: { email: t.user.email, password: t.user.password } });
    assert.equal(res.status, 200);
    assert.ok('privateKey' in res.body);
  });
});
