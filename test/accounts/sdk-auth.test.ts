import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { sql } from 'kysely';
import { createUser, uniqueEmail } from '../helpers/factories.js';
import { assertSdkModel, sdkBase64, sdkRequest, SDK_MODELS, SDK_TWO_FACTOR_METHODS } from '../helpers/sdk-wire.js';
import { TEST_BASE_URL, useService, type ServiceFixture } from '../helpers/service.js';

/** An Ed25519 key pair as the SDK holds it: the raw 32-byte public key, sent in standard Base64. */
function sdkKeyPair(): { publicKeyBase64: string } {
  const { publicKey } = generateKeyPairSync('ed25519');
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return { publicKeyBase64: sdkBase64(spki.subarray(spki.length - 32)) };
}

/** AccountlessClient.registrationRequest: v3, `?force=`, every member present (nulls included). */
async function sdkRegister(t: ServiceFixture, ephemeralKey: string | null, email = uniqueEmail('sdk')) {
  const res = await sdkRequest(t.api, 'POST', '/auth/register?force=false', {
    version: 3,
    body: { email, password: 'correct horse battery', displayName: null, ephemeralKey },
  });
  assert.equal(res.status, 200, res.text);
  assertSdkModel(res.body, SDK_MODELS.BasicTokenResponse);
  return { email, authToken: res.body.authToken as string, refreshToken: res.body.refreshToken as string };
}

const registerEphemeralKey = (t: ServiceFixture, token: string, ephemeralKey: string) =>
  sdkRequest(t.api, 'POST', '/auth/certificate', { token, body: { ephemeralKey } });

describe('auth as the SDK calls it (CERT_CHECK=new-key)', () => {
  const t = useService({ withMail: true });

  it("the auth token's aud is one string, the base URL: the SDK reads every claim as a scalar", async () => {
    const { authToken, refreshToken } = await sdkRegister(t, null);
    assert.equal(decodeJwt(authToken).aud, TEST_BASE_URL);
    const refreshed = await sdkRequest(t.api, 'POST', '/auth/token/refresh', { token: refreshToken, jsonHeaderOnly: true });
    assert.equal(refreshed.status, 200, refreshed.text);
    assertSdkModel(refreshed.body, SDK_MODELS.BasicTokenResponse);
    assert.equal(decodeJwt(refreshed.body.authToken).aud, TEST_BASE_URL);
    const logout = await sdkRequest(t.api, 'POST', '/auth/token/destroy', { token: refreshed.body.authToken, jsonHeaderOnly: true });
    assert.equal(logout.status, 204, logout.text);
    for (const [claim, value] of Object.entries(decodeJwt(authToken))) assert.ok(!Array.isArray(value), `${claim} is an array`);
  });

  it('GET /account after a v3 registration decodes into BasicUserDetailsResponse (publicKey required)', async () => {
    const { authToken } = await sdkRegister(t, null);
    const res = await sdkRequest(t.api, 'GET', '/account', { token: authToken });
    assert.equal(res.status, 200);
    assertSdkModel(res.body, SDK_MODELS.BasicUserDetailsResponse);
  });

  it('a key given at registration is certified without a secondary check; another key still needs one', async () => {
    const key = sdkKeyPair();
    const { authToken } = await sdkRegister(t, key.publicKeyBase64);
    const first = await registerEphemeralKey(t, authToken, key.publicKeyBase64);
    assert.equal(first.status, 200, first.text);
    assertSdkModel(first.body, SDK_MODELS.BasicRegisterEphemeralKeyResponse);
    assert.equal(first.body.userId, decodeJwt(authToken).sub);
    // new-key: the registration key is now a verified key of the account.
    assert.equal((await registerEphemeralKey(t, authToken, key.publicKeyBase64)).status, 200);
    assert.equal((await registerEphemeralKey(t, authToken, sdkKeyPair().publicKeyBase64)).status, 423);
  });

  it('a certificate request that fails part-way leaves the registration key usable (one transaction)', async () => {
    const key = sdkKeyPair();
    const { authToken } = await sdkRegister(t, key.publicKeyBase64);
    // A fault injected in the database: marking the key verified fails once.
    const db = t.service.ctx.db.kysely;
    const postgres = t.service.ctx.db.dialect === 'postgres';
    if (postgres) {
      await sql`CREATE FUNCTION refuse_verified_key() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$`.execute(db);
      await sql`CREATE TRIGGER refuse_verified_key BEFORE INSERT ON verified_keys FOR EACH ROW EXECUTE FUNCTION refuse_verified_key()`.execute(db);
    } else {
      await sql`CREATE TRIGGER refuse_verified_key BEFORE INSERT ON verified_keys BEGIN SELECT RAISE(ABORT, 'injected fault'); END`.execute(db);
    }
    try {
      assert.equal((await registerEphemeralKey(t, authToken, key.publicKeyBase64)).status, 500);
    } finally {
      await sql`DROP TRIGGER refuse_verified_key${postgres ? sql` ON verified_keys` : sql``}`.execute(db);
      if (postgres) await sql`DROP FUNCTION refuse_verified_key()`.execute(db);
    }
    const retry = await registerEphemeralKey(t, authToken, key.publicKeyBase64);
    assert.equal(retry.status, 200, retry.text);
  });

  it("another account cannot use someone's registration key to skip the check", async () => {
    const key = sdkKeyPair();
    await sdkRegister(t, key.publicKeyBase64);
    const other = await sdkRegister(t, null);
    assert.equal((await registerEphemeralKey(t, other.authToken, key.publicKeyBase64)).status, 423);
  });

  it('a registration ephemeralKey that is not an Ed25519 key is a 400 and creates no account', async () => {
    const email = uniqueEmail('badkey');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'der', type: 'spki' });
    const res = await sdkRequest(t.api, 'POST', '/auth/register', { version: 3, body: { email, password: 'correct horse battery', displayName: null, ephemeralKey: sdkBase64(rsa) } });
    assert.equal(res.status, 400);
    assert.equal((await sdkRequest(t.api, 'POST', '/auth/register', { version: 3, body: { email, password: 'correct horse battery', displayName: null, ephemeralKey: null } })).status, 200);
  });

  it('POST /auth/certificate/verify answers 200 {method} with the channel used, one the SDK knows', async () => {
    const { authToken, email } = await sdkRegister(t, null);
    const key = sdkKeyPair();
    // The SDK without a preferred method sends no query parameter: the service chooses, never WHATSAPP.
    const res = await sdkRequest(t.api, 'POST', '/auth/certificate/verify', { token: authToken, body: { ephemeralKey: key.publicKeyBase64 } });
    assert.equal(res.status, 200, res.text);
    assertSdkModel(res.body, { method: 'String' });
    assert.ok((SDK_TWO_FACTOR_METHODS as readonly string[]).includes(res.body.method));
    assert.equal(res.body.method, 'EMAIL');
    await t.sink.waitFor((m) => m.to.includes(email));
    const asked = await sdkRequest(t.api, 'POST', '/auth/certificate/verify?method=EMAIL', { token: authToken, body: { ephemeralKey: key.publicKeyBase64 } });
    assert.deepEqual(asked.body, { method: 'EMAIL' });
  });

  it("the legacy JavaScript SDK's two-factor start (axios, no method) gets a non-null method", async () => {
    const user = await createUser(t.api);
    const res = await t.api.post('/auth/certificate/verify', {
      rawBody: JSON.stringify({ ephemeralKey: sdkKeyPair().publicKeyBase64 }),
      headers: { accept: 'application/json, text/plain, */*', authorization: `Bearer ${user.authToken}` },
      contentType: 'application/json',
    });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.method !== undefined && res.body.method !== null);
  });
});

describe('the OpenAPI document shows the new routes and shapes', () => {
  const t = useService();

  it('lists DELETE /account, the password reset pair, verify answering {method}, registration ephemeralKey and the v2 directory answer', async () => {
    const doc = (await t.api.get('/openapi.json')).body;
    const paths = doc.paths;
    assert.ok(paths['/account'].delete?.responses['204']);
    assert.ok(paths['/account/password/reset/initialize'].post?.responses['204']);
    assert.ok(paths['/account/password/reset/verify'].post?.responses['204']);
    const verify = JSON.stringify(paths['/auth/certificate/verify'].post.responses['200']);
    assert.match(verify, /"method"/);
    assert.match(JSON.stringify(paths['/auth/register'].post.requestBody), /"ephemeralKey"/);
    const directory = JSON.stringify(paths['/directory/query'].post.responses['200']);
    assert.match(directory, /"foreignKey"/);
    assert.match(directory, /"phone"/);
  });
});

describe('a registration key under CERT_CHECK=always', () => {
  const t = useService({ env: { CERT_CHECK: 'always' }, withMail: true });

  it('skips the check once: the first certificate request with it, not the next', async () => {
    const key = sdkKeyPair();
    const { authToken } = await sdkRegister(t, key.publicKeyBase64);
    const first = await registerEphemeralKey(t, authToken, key.publicKeyBase64);
    assert.equal(first.status, 200, first.text);
    assertSdkModel(first.body, SDK_MODELS.BasicRegisterEphemeralKeyResponse);
    assert.equal((await registerEphemeralKey(t, authToken, key.publicKeyBase64)).status, 423);
  });
});
