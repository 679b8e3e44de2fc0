import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, it } from 'node:test';
import type { ApiResponse } from '../helpers/http.js';
import { useService } from '../helpers/service.js';
import { claimLock } from '../helpers/locks.js';
import { createThirdParty } from '../applications/helpers.js';

function assertJsonError(res: ApiResponse, status: number): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(Math.floor(res.body.code), status, res.text);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(!/stack|at \w+ \(|node_modules|FST_/.test(res.text), `internals leaked: ${res.text}`);
}

/** A raw request, for what fetch will not send (an unencodable path). */
function rawGet(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP conventions', () => {
  const t = useService({ withUser: true });

  it('paths answer with and without a trailing slash', async () => {
    assert.equal((await t.api.get('/account/', { token: t.user.authToken })).status, 200);
    assert.equal((await t.api.get('/time/')).status, 200);
    assert.equal((await t.api.get('/.well-known/jwks.json/')).status, 200);
    const login = await t.api.post('/auth/token/', { version: 2, body: { email: t.user.email, password: t.user.password } });
    assert.equal(login.status, 200);
    assert.equal((await t.api.post('/auth/token/refresh/', { token: login.body.refreshToken })).status, 200);
    assert.equal((await t.api.post('/account/', { token: t.user.authToken, body: { displayName: 'Slash' } })).status, 204);
  });

  it('an unknown path answers 404 in the error format', async () => {
    assertJsonError(await t.api.get('/no/such/thing'), 404);
    assertJsonError(await t.api.post('/auth/tokens', { body: {} }), 404);
  });

  it('a known path with a method it does not serve answers 405 with Allow', async () => {
    const res = await t.api.put('/account', { token: t.user.authToken, body: {} });
    assertJsonError(res, 405);
    assert.deepEqual(res.headers.get('allow')?.split(', ').sort(), ['DELETE', 'GET', 'HEAD', 'POST']);
    const token = await t.api.get('/auth/token/');
    assertJsonError(token, 405);
    assert.equal(token.headers.get('allow'), 'POST');
    assertJsonError(await t.api.request('PATCH', '/account/email/verify?code=x'), 405);
  });

  it('every response carries a request id', async () => {
    const res = await t.api.get('/time');
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.match((await t.api.get('/nope')).headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it("keeps the caller's request id when it looks like one, and replaces anything else", async () => {
    assert.equal((await t.api.get('/time', { headers: { 'x-request-id': 'trace-42.a:b' } })).headers.get('x-request-id'), 'trace-42.a:b');
    for (const given of ['x'.repeat(129), 'has spaces', '<script>', '{"a":1}']) {
      assert.match((await t.api.get('/time', { headers: { 'x-request-id': given } })).headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, given);
    }
  });

  it('malformed JSON, JSON null, arrays and strings where an object is due answer 400', async () => {
    for (const rawBody of ['{', '{"displayName": "x",}', "{'displayName': 'x'}", 'null', '[]', '"text"', '42', 'true', '{"__proto__": {"displayName": "x"}}']) {
      assertJsonError(await t.api.post('/account', { token: t.user.authToken, rawBody }), 400);
    }
  });

  it('an empty body where one is required answers 400, with or without a JSON content type', async () => {
    assertJsonError(await t.api.post('/account', { token: t.user.authToken }), 400);
    assertJsonError(await t.api.post('/account', { token: t.user.authToken, rawBody: '', contentType: 'application/json' }), 400);
    assertJsonError(await t.api.post('/auth/token', { rawBody: '', contentType: 'application/json' }), 400);
  });

  it('a body over 64 KiB answers 400, not a 500 or a dropped connection', async () => {
    const res = await t.api.post('/account', { token: t.user.authToken, body: { displayName: 'x'.repeat(70 * 1024) } });
    assertJsonError(res, 400);
    assert.equal(res.body.error, 'payload_too_large');
  });

  it('JSON content types with parameters and +json suffixes are read as JSON', async () => {
    for (const contentType of ['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON', 'application/merge-patch+json']) {
      const res = await t.api.post('/account', { token: t.user.authToken, rawBody: JSON.stringify({ displayName: 'Typed' }), contentType });
      assert.equal(res.status, 204, `${contentType}: ${res.text}`);
    }
  });

  it('a body of an unsupported content type answers a clean 4xx', async () => {
    assertJsonError(await t.api.post('/account', { token: t.user.authToken, rawBody: 'displayName=x', contentType: 'application/x-www-form-urlencoded' }), 415);
    assertJsonError(await t.api.post('/account', { token: t.user.authToken, rawBody: 'displayName', contentType: 'text/plain' }), 400);
  });

  it('body fields of the wrong JSON type are refused, not coerced', async () => {
    for (const displayName of [42, true, ['Ada'], { name: 'Ada' }]) {
      assertJsonError(await t.api.post('/account', { token: t.user.authToken, body: { displayName } }), 400);
    }
  });

  it('NUL characters in bodies and URLs answer 400 (PostgreSQL cannot store them)', async () => {
    assertJsonError(await t.api.post('/account', { token: t.user.authToken, body: { displayName: 'a\u0000b' } }), 400);
    assertJsonError(await t.api.put('/account/email/verify?code=abc%00def'), 400);
    assertJsonError(await t.api.get('/account%00', { token: t.user.authToken }), 400);
  });

  it('a URL that does not decode answers 400 in the error format', async () => {
    assertJsonError(await t.api.get('/account/%ff', { token: t.user.authToken }), 400);
    const raw = await rawGet(t.service.url, '/account/%E0%A4%A');
    assert.equal(raw.status, 400);
    assert.equal(JSON.parse(raw.body).code, 400);
  });

  it('HEAD on a GET route answers without a body', async () => {
    const res = await t.api.request('HEAD', '/time');
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
  });

  it('a query number that reads as ±Infinity (1e309) answers 400, not a 500 from the database', async () => {
    const { id: lockId } = await claimLock(t, t.user);
    const party = await createThirdParty(t.api, { owner: t.user });
    for (const value of ['1e309', '-1e309', 'Infinity']) {
      assertJsonError(await t.api.get(`/device/${lockId}/log?limit=${value}`, { token: t.user.authToken }), 400);
      assertJsonError(await t.api.get(`/platform/application/${party.applicationId}/user?pageSize=${value}`, { token: t.user.authToken }), 400);
      assertJsonError(await t.api.get(`/audit/proof/consistency?from=1&to=${value}`), 400);
    }
    // Large but finite numbers still meet their bounds as before.
    assert.equal((await t.api.get(`/device/${lockId}/log?limit=1e3`, { token: t.user.authToken })).status, 200);
  });
});

