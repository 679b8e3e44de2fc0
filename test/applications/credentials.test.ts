import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { describe, it } from 'node:test';
import { useService } from '../helpers/service.js';
import { createApplication, signingKey } from './helpers.js';

describe('applications: auth keys, issuers and CORS domains', () => {
  const t = useService({ withUser: true });

  const record = async (id: string) => (await t.api.get(`/platform/application/${id}`, { token: t.user.authToken })).body;

  it('takes public RSA, EC and Ed25519 keys on /key and /auth/key, and shows them by kid', async () => {
    const app = await createApplication(t.api, t.user);
    const rsa = await signingKey('RS256');
    const ec = await signingKey('ES384');
    const ed = await signingKey('EdDSA');
    assert.equal((await t.api.post(`/platform/application/${app.applicationId}/key`, { token: t.user.authToken, body: rsa.publicJwk })).status, 204);
    assert.equal((await t.api.post(`/platform/application/${app.applicationId}/auth/key`, { token: t.user.authToken, body: ec.publicJwk })).status, 204);
    assert.equal((await t.api.post(`/platform/application/${app.applicationId}/key`, { token: t.user.authToken, body: { ...ed.publicJwk, use: 'sig' } })).status, 204);
    const { authKeys, lastUpdated } = await record(app.applicationId);
    assert.deepEqual(Object.keys(authKeys).sort(), [rsa.kid, ec.kid, ed.kid].sort());
    // An auth key is for signatures: a key added without `use` shows "sig".
    assert.deepEqual(authKeys[ec.kid], { ...ec.publicJwk, use: 'sig' });
    assert.equal(authKeys[ed.kid].use, 'sig');
    assert.ok(lastUpdated >= app.lastUpdated);
  });

  it('refuses private JWKs and unsupported keys (400)', async () => {
    const app = await createApplication(t.api, t.user);
    const path = `/platform/application/${app.applicationId}/key`;
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = { ...(await exportJWK(privateKey)), kid: 'private' };
    const rsa1024 = { ...(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }) as object), kid: 'weak' };
    const brainpool = { ...(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'jwk' }) as object), crv: 'brainpoolP256r1', kid: 'bp' };
    const x25519 = { ...(generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' }) as object), kid: 'x' };
    const ok = await signingKey();
    const noKid = { ...ok.publicJwk, kid: undefined };
    for (const body of [privateJwk, { kty: 'oct', k: 'c2VjcmV0LXNlY3JldA', kid: 'hmac' }, rsa1024, brainpool, x25519, noKid, { kty: 'RSA', kid: 'empty' }]) {
      const res = await t.api.post(path, { token: t.user.authToken, body });
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    }
    assert.deepEqual((await record(app.applicationId)).authKeys, {});
  });

  it('refuses a duplicate kid (409) and removes keys for rotation', async () => {
    const app = await createApplication(t.api, t.user);
    const first = await signingKey('ES256', 'rotating');
    const second = await signingKey('ES256', 'rotating');
    const path = `/platform/application/${app.applicationId}`;
    assert.equal((await t.api.post(`${path}/key`, { token: t.user.authToken, body: first.publicJwk })).status, 204);
    const duplicate = await t.api.post(`${path}/auth/key`, { token: t.user.authToken, body: second.publicJwk });
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.body.code, 409);
    assert.equal((await t.api.delete(`${path}/auth/key/rotating`, { token: t.user.authToken })).status, 204);
    assert.equal((await t.api.delete(`${path}/key/rotating`, { token: t.user.authToken })).status, 404);
    assert.equal((await t.api.post(`${path}/key`, { token: t.user.authToken, body: second.publicJwk })).status, 204);
    assert.deepEqual((await record(app.applicationId)).authKeys.rotating, { ...second.publicJwk, use: 'sig' });
  });

  it('keeps issuers unique across all applications (409) and frees them on removal', async () => {
    const a = await createApplication(t.api, t.user);
    const b = await createApplication(t.api, t.user);
    const issuer = `https://auth-${randomUUID()}.example.com`;
    assert.equal((await t.api.post(`/platform/application/${a.applicationId}/issuer`, { token: t.user.authToken, body: { url: issuer } })).status, 204);
    assert.equal((await t.api.post(`/platform/application/${a.applicationId}/auth/issuer`, { token: t.user.authToken, body: { url: issuer } })).status, 409);
    assert.equal((await t.api.post(`/platform/application/${b.applicationId}/issuer`, { token: t.user.authToken, body: { url: issuer } })).status, 409);
    assert.deepEqual((await record(a.applicationId)).authDomains, [issuer]);
    assert.equal((await t.api.delete(`/platform/application/${b.applicationId}/issuer`, { token: t.user.authToken, body: { url: issuer } })).status, 404);
    assert.equal((await t.api.delete(`/platform/application/${a.applicationId}/auth/issuer`, { token: t.user.authToken, body: { url: issuer } })).status, 204);
    assert.deepEqual((await record(a.applicationId)).authDomains, []);
    assert.equal((await t.api.post(`/platform/application/${b.applicationId}/issuer`, { token: t.user.authToken, body: { url: issuer } })).status, 204);
    for (const url of ['not a uri', '', 'x'.repeat(2049), 'http://latchkey.test']) {
      assert.equal((await t.api.post(`/platform/application/${a.applicationId}/issuer`, { token: t.user.authToken, body: { url } })).status, 400, url.slice(0, 40));
    }
  });

  it('frees the issuers of a deleted application', async () => {
    const a = await createApplication(t.api, t.user);
    const b = await createApplication(t.api, t.user);
    const issuer = `https://auth-${randomUUID()}.example.com`;
    assert.equal((await t.api.post(`/platform/application/${a.applicationId}/issuer`, { token: t.user.authToken, body: { url: issuer } })).status, 204);
    assert.equal((await t.api.delete(`/platform/application/${a.applicationId}`, { token: t.user.authToken })).status, 204);
    assert.equal((await t.api.post(`/platform/application/${b.applicationId}/issuer`, { token: t.user.authToken, body: { url: issuer } })).status, 204);
  });

  it('adds and removes CORS domains', async () => {
    const app = await createApplication(t.api, t.user);
    const path = `/platform/application/${app.applicationId}/cors`;
    assert.equal((await t.api.post(path, { token: t.user.authToken, body: { url: 'https://web.example.com' } })).status, 204);
    assert.equal((await t.api.post(path, { token: t.user.authToken, body: { url: 'https://web.example.com/' } })).status, 409);
    assert.equal((await t.api.post(path, { token: t.user.authToken, body: { url: 'http://localhost:3000' } })).status, 204);
    assert.deepEqual((await record(app.applicationId)).corsDomains, ['https://web.example.com', 'http://localhost:3000']);
    for (const url of ['web.example.com', 'ftp://web.example.com', 'https://web.example.com/app']) {
      assert.equal((await t.api.post(path, { token: t.user.authToken, body: { url } })).status, 400, url);
    }
    assert.equal((await t.api.delete(path, { token: t.user.authToken, body: { url: 'https://web.example.com' } })).status, 204);
    assert.equal((await t.api.delete(path, { token: t.user.authToken, body: { url: 'https://web.example.com' } })).status, 404);
    assert.deepEqual((await record(app.applicationId)).corsDomains, ['http://localhost:3000']);
  });
});
