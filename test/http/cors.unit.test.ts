import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createHttpApp, type HttpApp } from '../../src/http/app.js';

// The CORS set-up of the bare HTTP app (the per-application origins are tested in
// test/applications/cors.test.ts): what a browser sees on the edges of the protocol.
const ALLOWED = 'https://app.example.com';

describe('CORS on the HTTP app', () => {
  let app: HttpApp;
  before(async () => {
    app = await createHttpApp({
      logger: pino({ level: 'silent' }),
      baseUrl: 'http://latchkey.test',
      trustProxy: [],
      corsOrigin: async (origin) => {
        if (origin === 'https://broken.example.com') throw new Error('origin store down');
        return origin === ALLOWED;
      },
      corsOpenPath: (path) => path.startsWith('/open/'),
    });
    app.get('/thing', { config: { auth: 'none' } }, async () => ({ ok: true }));
    app.put('/open/upload', { config: { auth: 'none' } }, async () => ({ ok: true }));
    await app.ready();
  });
  after(() => app.close());

  const preflight = (origin: string, url = '/thing') =>
    app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });

  it('answers an allowed preflight with 204 and the documented headers', async () => {
    const res = await preflight(ALLOWED);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal(res.headers['access-control-allow-origin'], ALLOWED);
    assert.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, POST, PUT, DELETE');
    assert.equal(res.headers['access-control-allow-headers'], 'authorization');
    assert.equal(res.headers['access-control-max-age'], '600');
    assert.equal(res.headers['access-control-expose-headers'], 'Location, Retry-After, X-Request-Id');
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    assert.match(String(res.headers.vary), /Origin/);
    assert.match(String(res.headers.vary), /Access-Control-Request-Headers/);
  });

  it('lets any origin call an open path (a URL that carries its own permission), without credentials', async () => {
    const res = await app.inject({ method: 'OPTIONS', url: '/open/upload?signature=x', headers: { origin: 'https://anyone.example.org', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' } });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.equal(res.headers['access-control-allow-methods'], 'GET, HEAD, PUT');
    assert.equal(res.headers['access-control-allow-headers'], 'content-type');
    assert.equal(res.headers['access-control-allow-credentials'], undefined);
    const put = await app.inject({ method: 'PUT', url: '/open/upload', headers: { origin: 'https://anyone.example.org' } });
    assert.equal(put.headers['access-control-allow-origin'], '*');
    // Elsewhere the origin list still decides.
    assert.equal((await preflight('https://anyone.example.org')).statusCode, 404);
  });

  it('answers a refused preflight, and an OPTIONS that is no preflight, 404 in the error format, on a known path too', async () => {
    const refused = await preflight('https://evil.example.com');
    assert.equal(refused.statusCode, 404);
    assert.equal(refused.json().error, 'not_found');
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
    assert.equal(refused.headers.allow, undefined);
    const plain = await app.inject({ method: 'OPTIONS', url: '/thing', headers: { origin: ALLOWED } });
    assert.equal(plain.statusCode, 404);
    assert.equal(plain.json().error, 'not_found');
    assert.equal(plain.headers['access-control-allow-origin'], ALLOWED);
  });

  it('adds the headers to an allowed ordinary request and only Vary otherwise', async () => {
    const allowed = await app.inject({ method: 'GET', url: '/thing', headers: { origin: ALLOWED } });
    assert.equal(allowed.statusCode, 200);
    assert.equal(allowed.headers['access-control-allow-origin'], ALLOWED);
    const without = await app.inject({ method: 'GET', url: '/thing' });
    assert.equal(without.headers['access-control-allow-origin'], undefined);
    assert.match(String(without.headers.vary), /Origin/);
    const refused = await app.inject({ method: 'GET', url: '/thing', headers: { origin: 'https://evil.example.com' } });
    assert.equal(refused.statusCode, 200);
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
    assert.equal(refused.headers.vary, 'Origin');
  });

  it('answers an OPTIONS without an Origin (no CORS at all) 404 in the error format, varying by Origin', async () => {
    for (const url of ['/thing', '/open/upload']) {
      const res = await app.inject({ method: 'OPTIONS', url, headers: { 'access-control-request-method': 'GET' } });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, 404);
      assert.equal(res.headers.vary, 'Origin');
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      assert.equal(res.headers['access-control-allow-methods'], undefined);
    }
  });

  it('answers a failing origin check with a 500 that says nothing of it', async () => {
    const res = await app.inject({ method: 'GET', url: '/thing', headers: { origin: 'https://broken.example.com' } });
    assert.equal(res.statusCode, 500);
    assert.ok(!res.body.includes('origin store'));
  });
});
