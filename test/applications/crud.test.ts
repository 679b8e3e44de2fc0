import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { TEST_BASE_URL, useService } from '../helpers/service.js';
import { applicationBody, createApplication, signingKey } from './helpers.js';

describe('applications: create, read, update, delete', () => {
  const t = useService({ withUser: true });

  it('creates with 201, a Location and the full record', async () => {
    const body = applicationBody({
      privacyPolicy: 'https://example.com/privacy',
      supportContact: 'mailto:help@example.com',
      appLink: 'exampleapp://open',
      logoUrl: `${TEST_BASE_URL}/cdn/applications/logo.png`,
      emailPreferences: { senderEmail: 'doors@example.com', senderName: 'Example Doors', primaryColour: '#112233', secondaryColour: '#abcdef', callToAction: { actionTarget: 'https://example.com/app', headline: 'Get the app', actionText: 'Download' } },
    });
    const res = await t.api.post('/platform/application', { token: t.user.authToken, body });
    assert.equal(res.status, 201);
    const record = res.body;
    assert.equal(res.headers.get('location'), `${TEST_BASE_URL}/platform/application/${record.applicationId}`);
    assert.match(record.applicationId, /^[0-9a-f-]{36}$/);
    for (const field of Object.keys(body)) assert.deepEqual(record[field], body[field], field);
    assert.deepEqual(record.owners, [t.user.userId]);
    assert.deepEqual(record.authKeys, {});
    assert.deepEqual(record.authDomains, []);
    assert.deepEqual(record.corsDomains, []);
    assert.equal(typeof record.lastUpdated, 'number');
    const key = record.encryptionKey;
    assert.equal(key.kty, 'RSA');
    assert.equal(key.alg, 'RSA-OAEP-256');
    assert.equal(Buffer.from(key.n, 'base64url').length, 256, 'RSA-2048');
    for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) assert.equal(key[secret], undefined);
    assert.ok(!JSON.stringify(record).includes('sealed'));
  });

  it('gives every application its own encryption key', async () => {
    const a = await createApplication(t.api, t.user);
    const b = await createApplication(t.api, t.user);
    assert.notEqual(a.encryptionKey.n, b.encryptionKey.n);
  });

  it('validates the fields (400)', async () => {
    const cases: Array<Record<string, unknown>> = [
      { name: undefined },
      { companyName: undefined },
      { mailingAddress: undefined },
      { name: '' },
      { name: 'x'.repeat(256) },
      { companyName: 'x'.repeat(256) },
      { privacyPolicy: 'http://example.com/privacy' },
      { privacyPolicy: 'x'.repeat(2049) },
      { supportContact: 'ftp://example.com' },
      { supportContact: 'help@example.com' },
      { logoUrl: 'https://elsewhere.example/logo.png' },
      { logoUrl: 'http://latchkey.test.evil.example/cdn/logo.png' },
      { appLink: 'not a uri' },
      // Issue 27 point 10: a script or local URL is no app link.
      { appLink: 'javascript:alert(document.cookie)' },
      { appLink: 'JavaScript:alert(1)' },
      { appLink: 'java\tscript:alert(1)' },
      { appLink: 'data:text/html,<script>alert(1)</script>' },
      { appLink: 'vbscript:msgbox(1)' },
      { emailPreferences: { primaryColour: 'red' } },
      { emailPreferences: { secondaryColour: '#12345' } },
      { emailPreferences: { senderEmail: 'not-an-email' } },
      { emailPreferences: { callToAction: { headline: 'h', actionText: 't' } } },
      { emailPreferences: { callToAction: { actionTarget: 'javascript:alert(1)', headline: 'h', actionText: 't' } } },
    ];
    for (const overrides of cases) {
      const res = await t.api.post('/platform/application', { token: t.user.authToken, body: applicationBody(overrides) });
      assert.equal(res.status, 400, JSON.stringify(overrides));
      assert.equal(res.body.code, 400);
    }
    assert.equal((await t.api.post('/platform/application', { token: t.user.authToken, body: applicationBody({ name: 'x'.repeat(255), supportContact: 'https://example.com/help' }) })).status, 201);
  });

  it('lists only the caller’s applications', async () => {
    const other = await createUser(t.api);
    const mine = await createApplication(t.api, other);
    const theirs = await createApplication(t.api, t.user);
    const res = await t.api.get('/platform/application', { token: other.authToken });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.map((a: { applicationId: string }) => a.applicationId), [mine.applicationId]);
    assert.ok(!res.body.some((a: { applicationId: string }) => a.applicationId === theirs.applicationId));
  });

  it('updates with 204; null clears an optional field', async () => {
    const app = await createApplication(t.api, t.user, { privacyPolicy: 'https://example.com/p', emailPreferences: { senderName: 'Old' } });
    const path = `/platform/application/${app.applicationId}`;
    const res = await t.api.post(path, { token: t.user.authToken, body: { name: 'Renamed', privacyPolicy: null, emailPreferences: { primaryColour: '#000000' } } });
    assert.equal(res.status, 204);
    const updated = (await t.api.get(path, { token: t.user.authToken })).body;
    assert.equal(updated.name, 'Renamed');
    assert.equal(updated.companyName, app.companyName);
    assert.equal(updated.privacyPolicy, undefined);
    // Replaced whole; the unset colour shows the service's own.
    assert.deepEqual(updated.emailPreferences, { primaryColour: '#000000', secondaryColour: '#45BDD1' });
    assert.ok(updated.lastUpdated >= app.lastUpdated);
    assert.equal((await t.api.post(path, { token: t.user.authToken, body: { privacyPolicy: 'http://example.com' } })).status, 400);
    // An explicit null for a member that cannot be null is taken as absent (the tolerant reader, docs/decisions.md).
    assert.equal((await t.api.post(path, { token: t.user.authToken, body: { name: null } })).status, 204);
    assert.equal((await t.api.get(path, { token: t.user.authToken })).body.name, 'Renamed');
    assert.equal((await t.api.post(path, { token: t.user.authToken, body: { logoUrl: 'https://elsewhere.example/x.png' } })).status, 400);
  });

  it('deletes with 204, then answers 404', async () => {
    const app = await createApplication(t.api, t.user);
    const path = `/platform/application/${app.applicationId}`;
    assert.equal((await t.api.delete(path, { token: t.user.authToken })).status, 204);
    assert.equal((await t.api.get(path, { token: t.user.authToken })).status, 404);
    assert.equal((await t.api.delete(path, { token: t.user.authToken })).status, 404);
    assert.equal((await t.api.post(path, { token: t.user.authToken, body: { name: 'x' } })).status, 404);
  });

  it('answers 404 on every application route to a non-owner, and changes nothing', async () => {
    const app = await createApplication(t.api, t.user);
    const stranger = await createUser(t.api);
    const key = await signingKey();
    const base = `/platform/application/${app.applicationId}`;
    const routes: Array<[string, string, unknown]> = [
      ['GET', base, undefined],
      ['POST', base, { name: 'Hijacked' }],
      ['DELETE', base, undefined],
      ['POST', `${base}/logo`, { contentType: 'image/png' }],
      ['POST', `${base}/key`, key.publicJwk],
      ['POST', `${base}/auth/key`, key.publicJwk],
      ['DELETE', `${base}/key/${key.kid}`, undefined],
      ['DELETE', `${base}/auth/key/${key.kid}`, undefined],
      ['POST', `${base}/issuer`, { url: 'https://stranger.example' }],
      ['POST', `${base}/auth/issuer`, { url: 'https://stranger.example' }],
      ['DELETE', `${base}/issuer`, { url: 'https://stranger.example' }],
      ['DELETE', `${base}/auth/issuer`, { url: 'https://stranger.example' }],
      ['POST', `${base}/cors`, { url: 'https://stranger.example' }],
      ['DELETE', `${base}/cors`, { url: 'https://stranger.example' }],
    ];
    for (const [method, path, body] of routes) {
      const res = await t.api.request(method, path, { token: stranger.authToken, body });
      assert.equal(res.status, 404, `${method} ${path}`);
    }
    const unchanged = await t.api.get(base, { token: t.user.authToken });
    assert.equal(unchanged.status, 200);
    assert.equal(unchanged.body.name, app.name);
    assert.deepEqual(unchanged.body.authKeys, {});
    assert.equal((await t.api.get('/platform/application/00000000-0000-7000-8000-000000000000', { token: t.user.authToken })).status, 404);
    assert.equal((await t.api.get('/platform/application/not-a-uuid', { token: t.user.authToken })).status, 404);
  });

  it('needs authentication (401)', async () => {
    assert.equal((await t.api.get('/platform/application')).status, 401);
    assert.equal((await t.api.post('/platform/application', { body: applicationBody() })).status, 401);
  });
});
