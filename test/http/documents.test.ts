import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { TEST_BASE_URL, useService } from '../helpers/service.js';

describe('public documents: time, JWKS, OpenAPI, docs', () => {
  const t = useService({ withUser: true });

  it('GET /time answers the server clock in integer epoch milliseconds, without authentication', async () => {
    const before = Date.now();
    const res = await t.api.get('/time');
    const after = Date.now();
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body), ['now']);
    assert.ok(Number.isInteger(res.body.now));
    assert.ok(res.body.now >= before - 1000 && res.body.now <= after + 1000, 'same clock, in milliseconds not seconds');
    assert.equal((await t.api.get('/time', { token: 'garbage' })).status, 200, 'a bad token does not matter there');
  });

  it('GET /.well-known/jwks.json publishes the key that signs auth tokens, without private parts', async () => {
    const res = await t.api.get('/.well-known/jwks.json');
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body.keys) && res.body.keys.length >= 1);
    for (const key of res.body.keys) {
      for (const privatePart of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) assert.ok(!(privatePart in key), `JWK exposes ${privatePart}`);
      assert.equal(typeof key.kid, 'string');
      assert.equal(key.use, 'sig');
    }
    const { kid } = decodeProtectedHeader(t.user.authToken);
    assert.ok(res.body.keys.some((k: { kid: string }) => k.kid === kid), 'the auth token kid is published');
  });

  it('the auth token verifies against the published JWKS with issuer and audience', async () => {
    const jwks = createLocalJWKSet((await t.api.get('/.well-known/jwks.json')).body);
    const { payload, protectedHeader } = await jwtVerify(t.user.authToken, jwks, { issuer: TEST_BASE_URL, audience: TEST_BASE_URL });
    assert.equal(payload.sub, t.user.userId);
    assert.equal(protectedHeader.typ, 'at+jwt');
    await assert.rejects(jwtVerify(t.user.authToken, jwks, { audience: 'https://elsewhere.example' }));
  });

  it('a rotated key is published beside the old one, and tokens signed by either are accepted', async () => {
    const before = await t.api.get('/.well-known/jwks.json');
    await t.service.ctx.keys.rotate();
    const after = await t.api.get('/.well-known/jwks.json');
    assert.equal(after.body.keys.length, before.body.keys.length + 1);
    assert.equal((await t.api.get('/account', { token: t.user.authToken })).status, 200, 'the old key still verifies');
    const login = await t.api.post('/auth/token', { version: 2, body: { email: t.user.email, password: t.user.password } });
    const { kid } = decodeProtectedHeader(login.body.authToken);
    assert.notEqual(kid, decodeProtectedHeader(t.user.authToken).kid);
    assert.equal((await t.api.get('/account', { token: login.body.authToken })).status, 200);
    const jwks = createLocalJWKSet(after.body);
    await jwtVerify(login.body.authToken, jwks, { issuer: TEST_BASE_URL, audience: TEST_BASE_URL });
  });

  it('GET /openapi.json is an OpenAPI 3.1 document that lists the account and auth paths', async () => {
    const res = await t.api.get('/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.match(res.body.openapi, /^3\.1\./);
    assert.equal(typeof res.body.info?.title, 'string');
    assert.equal(res.body.servers?.[0]?.url, TEST_BASE_URL);
    const paths = res.body.paths as Record<string, Record<string, { responses?: Record<string, unknown> }>>;
    const expected: Array<[string, string]> = [
      ['/auth/register', 'post'],
      ['/auth/token', 'post'],
      ['/auth/token/refresh', 'post'],
      ['/token/destroy', 'post'],
      ['/auth/token/destroy', 'post'],
      ['/account', 'get'],
      ['/account', 'post'],
      ['/account/password', 'post'],
      ['/account/email/verify', 'put'],
      ['/account/email/reverify', 'post'],
      ['/.well-known/jwks.json', 'get'],
      ['/time', 'get'],
    ];
    for (const [path, method] of expected) {
      const operation = paths[path]?.[method];
      assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
      assert.ok(Object.keys(operation.responses ?? {}).length > 0, `${method.toUpperCase()} ${path} documents its responses`);
    }
    assert.ok(paths['/auth/token']!.post!.responses!['401'], 'error statuses are documented');
  });

  it('GET /docs serves an HTML page, to browsers too', async () => {
    const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    for (const accept of ['text/html', browserAccept]) {
      for (const path of ['/docs', '/docs/']) {
        const res = await t.api.get(path, { accept });
        assert.equal(res.status, 200, `${path} with ${accept}: ${res.text.slice(0, 200)}`);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
        assert.match(res.text, /<html/i);
      }
    }
  });

  // Issue 27 point 10: /docs shares the console's origin (and its stored tokens).
  it('/docs and its assets run only their own scripts and may not be framed', async () => {
    for (const path of ['/docs', '/docs/', '/docs/static/swagger-initializer.js', '/docs/json']) {
      const res = await t.api.get(path, { accept: 'text/html' });
      assert.ok(res.status < 400, `${path}: ${res.status}`);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.match(csp, /script-src 'self'(;|$)/, path);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, path);
      assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
    }
    // The API's JSON answers are not pages: the docs' policy stays on the docs.
    assert.equal((await t.api.get('/time')).headers.get('x-frame-options'), null);
  });

  it('the OpenAPI document names every path parameter, describes the execute body and the event stream\'s media type', async () => {
    const doc = (await t.api.get('/openapi.json')).body;
    const unnamed: string[] = [];
    for (const [path, item] of Object.entries<Record<string, { parameters?: Array<{ in: string; name: string; required?: boolean }> }>>(doc.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      for (const [method, operation] of Object.entries(item)) {
        const declared = (operation.parameters ?? []).filter((p) => p.in === 'path');
        for (const name of names) if (!declared.some((p) => p.name === name && p.required === true)) unnamed.push(`${method.toUpperCase()} ${path}: {${name}}`);
        for (const p of declared) if (!names.includes(p.name)) unnamed.push(`${method.toUpperCase()} ${path}: stray ${p.name}`);
      }
    }
    assert.deepEqual(unnamed, []);

    const execute = doc.paths['/device/{lockId}/execute'].post;
    assert.equal(execute.requestBody?.required, true);
    assert.deepEqual(Object.keys(execute.requestBody.content).sort(), ['application/json', 'application/jwt', 'text/plain']);
    for (const media of Object.values<{ schema: { description?: string; contentMediaType?: string } }>(execute.requestBody.content)) {
      assert.match(media.schema.description ?? '', /compact JWS/);
      assert.equal(media.schema.contentMediaType, 'application/jwt');
    }

    const events = doc.paths['/device/events'].get.responses['200'];
    assert.deepEqual(Object.keys(events.content), ['text/event-stream']);
    assert.equal(events.content['text/event-stream'].schema.type, 'string');
  });
});
