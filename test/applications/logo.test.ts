import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EmbeddedLogoStorage } from '../../src/cdn/storage.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { startTestService, TEST_BASE_URL, type TestService } from '../helpers/service.js';
import { createApplication } from './helpers.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
/** The path and query of an absolute URL, to send to the test server. */
const local = (url: string) => url.slice(TEST_BASE_URL.length);
const put = (t: TestService, url: string, bytes: Buffer, contentType: string) =>
  fetch(`${t.api.url}${local(url)}`, { method: 'PUT', body: bytes, headers: { 'content-type': contentType } });

describe('logo upload (embedded storage)', () => {
  let t: TestService;
  let owner: TestUser;
  let applicationId: string;
  before(async () => {
    t = await startTestService();
    owner = await createUser(t.api);
    applicationId = (await createApplication(t.api, owner)).applicationId;
  });
  after(() => t.close());

  const requestUpload = (contentType: string) => t.api.post(`/platform/application/${applicationId}/logo`, { token: owner.authToken, body: { contentType } });

  it('uploads to a signed URL, serves the file under /cdn and lets the owner set it as the logo', async () => {
    const res = await requestUpload('image/png');
    assert.equal(res.status, 200);
    const { uploadUrl, logoUrl } = res.body;
    assert.ok(uploadUrl.startsWith(`${TEST_BASE_URL}/cdn/`));
    assert.ok(logoUrl.startsWith(`${t.config.cdnUrl}/`));
    // A browser on any origin (the console, a developer's own page) may PUT to the signed URL: it carries its own permission.
    const preflight = await fetch(`${t.api.url}${local(uploadUrl)}`, { method: 'OPTIONS', headers: { origin: 'https://dashboard.example.org', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.equal(preflight.headers.get('access-control-allow-credentials'), null);
    assert.equal((await put(t, uploadUrl, PNG, 'image/png')).status, 204);

    const served = await fetch(`${t.api.url}${local(logoUrl)}`, { headers: { accept: 'image/png' } });
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), PNG);

    assert.equal((await t.api.post(`/platform/application/${applicationId}`, { token: owner.authToken, body: { logoUrl } })).status, 204);
    assert.equal((await t.api.get(`/platform/application/${applicationId}`, { token: owner.authToken })).body.logoUrl, logoUrl);
  });

  it('serves SVG as a sandboxed document', async () => {
    const { uploadUrl, logoUrl } = (await requestUpload('image/svg+xml')).body;
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    assert.equal((await put(t, uploadUrl, svg, 'image/svg+xml')).status, 204);
    const served = await fetch(`${t.api.url}${local(logoUrl)}`);
    assert.equal(served.headers.get('content-type'), 'image/svg+xml');
    assert.match(served.headers.get('content-security-policy') ?? '', /sandbox/);
  });

  it('refuses an upload with another content type (403)', async () => {
    const { uploadUrl } = (await requestUpload('image/png')).body;
    assert.equal((await put(t, uploadUrl, PNG, 'image/jpeg')).status, 403);
    assert.equal((await put(t, uploadUrl, PNG, 'text/html')).status, 403);
    assert.equal((await put(t, uploadUrl, Buffer.from('{}'), 'application/json')).status, 403);
  });

  it('refuses a tampered signature, expiry or key (403)', async () => {
    const { uploadUrl } = (await requestUpload('image/png')).body;
    const url = new URL(uploadUrl);
    const tampered = (change: (u: URL) => void) => {
      const copy = new URL(url);
      change(copy);
      return copy.toString();
    };
    const signature = url.searchParams.get('signature')!;
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    assert.equal((await put(t, tampered((u) => u.searchParams.set('signature', flipped)), PNG, 'image/png')).status, 403);
    assert.equal((await put(t, tampered((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))), PNG, 'image/png')).status, 403);
    assert.equal((await put(t, tampered((u) => u.searchParams.delete('signature')), PNG, 'image/png')).status, 403);
    assert.equal((await put(t, tampered((u) => (u.pathname = u.pathname.replace(/logo-[0-9a-f]{4}/, 'logo-0000'))), PNG, 'image/png')).status, 403);
    const escape = `${t.api.url}/cdn/..%2Fkey-encryption.key${url.search}`;
    assert.equal((await fetch(escape, { method: 'PUT', body: PNG, headers: { 'content-type': 'image/png' } })).status, 403);
  });

  it('refuses an upload past its expiry (403)', async () => {
    const storage = new EmbeddedLogoStorage(t.service.ctx);
    const { uploadUrl } = await storage.createUpload(applicationId, 'image/png', t.service.ctx.now() - 16 * 60);
    const res = await put(t, uploadUrl, PNG, 'image/png');
    assert.equal(res.status, 403);
    assert.match(((await res.json()) as { message: string }).message, /expired/);
    const fresh = await storage.createUpload(applicationId, 'image/png', t.service.ctx.now() - 14 * 60);
    assert.equal((await put(t, fresh.uploadUrl, PNG, 'image/png')).status, 204);
  });

  it('refuses files over 1 MiB and empty ones', async () => {
    const { uploadUrl } = (await requestUpload('image/webp')).body;
    // Out-of-bounds bodies are 400 by decisions §1 (the error handler's choice), with a precise error.
    const tooLarge = await put(t, uploadUrl, Buffer.alloc(1024 * 1024 + 1), 'image/webp');
    assert.ok(tooLarge.status === 400 || tooLarge.status === 413, String(tooLarge.status));
    assert.equal(((await tooLarge.json()) as { error: string }).error, 'payload_too_large');
    assert.equal((await put(t, uploadUrl, Buffer.alloc(0), 'image/webp')).status, 400);
    assert.equal((await put(t, uploadUrl, Buffer.alloc(1024 * 1024, 1), 'image/webp')).status, 204);
  });

  it('accepts only image content types (400) and only from the owner (404)', async () => {
    for (const contentType of ['text/html', 'image/bmp', 'application/octet-stream']) assert.equal((await requestUpload(contentType)).status, 400, contentType);
    for (const contentType of ['image/jpeg', 'image/gif', 'image/webp']) assert.equal((await requestUpload(contentType)).status, 200, contentType);
    const stranger = await createUser(t.api);
    assert.equal((await t.api.post(`/platform/application/${applicationId}/logo`, { token: stranger.authToken, body: { contentType: 'image/png' } })).status, 404);
  });

  it('answers 404 for files that do not exist', async () => {
    assert.equal((await fetch(`${t.api.url}/cdn/applications/${applicationId}/logo-${'0'.repeat(32)}.png`)).status, 404);
    assert.equal((await fetch(`${t.api.url}/cdn/key-encryption.key`)).status, 404);
  });

  it('refuses uploads for a deleted application and removes its files', async () => {
    const doomed = (await createApplication(t.api, owner)).applicationId;
    const first = (await t.api.post(`/platform/application/${doomed}/logo`, { token: owner.authToken, body: { contentType: 'image/png' } })).body;
    const second = (await t.api.post(`/platform/application/${doomed}/logo`, { token: owner.authToken, body: { contentType: 'image/png' } })).body;
    assert.equal((await put(t, first.uploadUrl, PNG, 'image/png')).status, 204);
    assert.equal((await t.api.delete(`/platform/application/${doomed}`, { token: owner.authToken })).status, 204);
    assert.equal((await put(t, second.uploadUrl, PNG, 'image/png')).status, 403);
    assert.equal((await fetch(`${t.api.url}${local(first.logoUrl)}`)).status, 404);
  });
});

describe('logo upload (S3-compatible storage)', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_BUCKET: 'latchkey-logos',
      S3_REGION: 'eu-west-1',
      S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      S3_SECRET_ACCESS_KEY: 'secret-example',
      S3_PUBLIC_URL: 'https://logos.example.com',
    });
  });
  after(() => t.close());

  it('answers a presigned PUT to the bucket and a logo URL on the public bucket URL', async () => {
    const owner = await createUser(t.api);
    const { applicationId } = await createApplication(t.api, owner);
    const res = await t.api.post(`/platform/application/${applicationId}/logo`, { token: owner.authToken, body: { contentType: 'image/gif' } });
    assert.equal(res.status, 200);
    const upload = new URL(res.body.uploadUrl);
    assert.equal(upload.origin, 'http://127.0.0.1:9000');
    assert.match(upload.pathname, new RegExp(`^/latchkey-logos/applications/${applicationId}/logo-[0-9a-f]{32}\\.gif$`));
    assert.equal(upload.searchParams.get('X-Amz-Algorithm'), 'AWS4-HMAC-SHA256');
    assert.match(upload.searchParams.get('X-Amz-Credential')!, /^AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
    assert.equal(upload.searchParams.get('X-Amz-Expires'), '900');
    assert.equal(upload.searchParams.get('X-Amz-SignedHeaders'), 'content-type;host');
    assert.match(upload.searchParams.get('X-Amz-Signature')!, /^[0-9a-f]{64}$/);
    assert.ok(!res.text.includes('secret-example'));
    const key = upload.pathname.slice('/latchkey-logos/'.length);
    assert.equal(res.body.logoUrl, `https://logos.example.com/${key}`);
    assert.equal((await t.api.post(`/platform/application/${applicationId}`, { token: owner.authToken, body: { logoUrl: res.body.logoUrl } })).status, 204);
  });
});
