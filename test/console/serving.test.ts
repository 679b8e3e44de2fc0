import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { logoOrigins } from '../../src/cdn/origins.js';
import { CONSOLE_ROOT, consoleCsp, consoleRoutes } from '../../src/console/routes.js';
import { useService } from '../helpers/service.js';
import { ensureConsoleBuilt } from './browser.js';

interface Raw { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }

/** A GET with exactly the headers given (fetch would add and undo Accept-Encoding). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

ensureConsoleBuilt();

describe('GET /console', () => {
  const t = useService();

  it('answers the app for /console and any path under it (the app routes in the browser), same-origin CSP, not cached', async () => {
    for (const path of ['/console', '/console/', '/console/locks/123/members', '/console/verify?code=abc']) {
      const res = await rawGet(`${t.service.url}${path}`, { accept: 'text/html' });
      assert.equal(res.status, 200, path);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.match(res.body.toString(), /<div id="app"><\/div>/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      // Besides itself, only the logo store: uploads to BASE_URL's /cdn, logos from CDN_URL (here BASE_URL/cdn).
      assert.match(String(res.headers['content-security-policy']), /default-src 'self'.*img-src 'self' data: blob: https: http:\/\/latchkey\.test;.*connect-src 'self' http:\/\/latchkey\.test;/);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
    }
  });

  it('sends hashed assets precompressed (br, else gzip) with immutable caching', async () => {
    const assets = await readdir(join(CONSOLE_ROOT, 'assets'));
    const script = assets.find((name) => name.endsWith('.js'))!;
    const url = `${t.service.url}/console/assets/${script}`;
    const plain = await rawGet(url);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.match(String(plain.headers['content-type']), /^(application|text)\/javascript/);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    const br = await rawGet(url, { 'accept-encoding': 'gzip, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(brotliDecompressSync(br.body), plain.body);
    assert.ok(br.body.length < plain.body.length / 2);
    const gz = await rawGet(url, { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gz.body), plain.body);
  });

  it('does not serve files outside the build: a traversal gets the app page, never the file', async () => {
    for (const path of ['/console/..%2f..%2fpackage.json', '/console/%2e%2e/%2e%2e/package.json', '/console/assets/../../../package.json']) {
      const res = await rawGet(`${t.service.url}${path}`);
      assert.ok(res.status === 200 || res.status === 400 || res.status === 404, `${path}: ${res.status}`);
      assert.doesNotMatch(res.body.toString(), /"devDependencies"/, path);
    }
  });

  it('allows the S3 endpoint for uploads and S3_PUBLIC_URL and CDN_URL for logos when logos are in S3', () => {
    const s3 = { endpoint: 'http://minio.internal:9000', bucket: 'logos', region: 'us-east-1', accessKeyId: 'a', secretAccessKey: 's', sessionToken: null, publicUrl: 'https://logos.example.com/b' };
    const origins = logoOrigins({ baseUrl: 'https://doors.example.com', cdnUrl: 'http://cdn.example.com/x', s3 });
    assert.deepEqual(origins, { upload: ['http://minio.internal:9000'], images: ['http://cdn.example.com', 'https://logos.example.com'] });
    const csp = consoleCsp(origins);
    assert.match(csp, /connect-src 'self' http:\/\/minio\.internal:9000;/);
    assert.match(csp, /img-src 'self' data: blob: https: http:\/\/cdn\.example\.com https:\/\/logos\.example\.com;/);
    assert.deepEqual(logoOrigins({ baseUrl: 'https://doors.example.com/latchkey', cdnUrl: 'https://doors.example.com/latchkey/cdn', s3: null }), { upload: ['https://doors.example.com'], images: ['https://doors.example.com'] });
  });

  it('without a build answers 503 with a page saying to run npm run build', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'latchkey-console-'));
    const app = Fastify();
    await app.register(consoleRoutes({ root: empty }));
    try {
      for (const path of ['/console', '/console/locks']) {
        const res = await app.inject({ method: 'GET', url: path });
        assert.equal(res.statusCode, 503);
        assert.match(res.body, /npm run build/);
        assert.match(String(res.headers['content-type']), /^text\/html/);
      }
    } finally {
      await app.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
