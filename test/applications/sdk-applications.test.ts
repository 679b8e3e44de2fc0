import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import { ApplicationModel, ApplicationOwnerModel, ApplicationUserModel, assertMatchesModel, sdkType } from '../helpers/sdk-models.js';
import { sdkAccept } from '../helpers/sdk-wire.js';
import { startTestService, TEST_BASE_URL, type TestService } from '../helpers/service.js';
import { applicationBody, createApplication } from './helpers.js';

/**
 * Issue 14, item 6: PlatformClient's requests byte for byte (sealed `type` members, `alg: null`,
 * standard Base64), answers checked against the SDK's models; third-party tokens as SDK-era
 * issuers sign them.
 */

const std = (bytes: Buffer) => bytes.toString('base64');
const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** A compact JWS signed with node:crypto, its segments in standard (padded) Base64 or Base64URL. */
function compactJws(header: object, payload: object, sign64: (input: Buffer) => Buffer, encoding: 'base64' | 'base64url'): string {
  const input = `${json(header).toString(encoding)}.${json(payload).toString(encoding)}`;
  return `${input}.${sign64(Buffer.from(input)).toString(encoding)}`;
}
const ed25519Signer = (key: KeyObject) => (input: Buffer) => sign(null, input, key);
const es256kSigner = (key: KeyObject) => (input: Buffer) => sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' });

describe('applications, as the official SDK sees them', () => {
  let t: TestService;
  let owner: TestUser;
  let second: TestUser;
  let applicationId: string;
  let path: string;

  before(async () => {
    t = await startTestService();
    [owner, second] = await Promise.all([createUser(t.api), createUser(t.api)]);
    applicationId = (await createApplication(t.api, owner)).applicationId;
    path = `/platform/application/${applicationId}`;
  });
  after(() => t?.close());

  const post = (url: string, rawBody: string, user = owner) => t.api.post(url, { token: user.authToken, rawBody, accept: sdkAccept() });
  const record = async () => {
    const res = await t.api.get(path, { token: owner.authToken, accept: sdkAccept() });
    assert.equal(res.status, 200);
    assertMatchesModel(res.body, ApplicationModel, 'GET /platform/application/{id}');
    return res.body;
  };

  it('always shows emailPreferences, with the default colours when unset; stores onlySendEssentialEmails', async () => {
    assert.deepEqual((await record()).emailPreferences, { primaryColour: '#00283C', secondaryColour: '#45BDD1' });
    const list = await t.api.get('/platform/application', { token: owner.authToken, accept: sdkAccept() });
    for (const entry of list.body) assertMatchesModel(entry, ApplicationModel, 'GET /platform/application');
    const res = await post(path, `{"type":"${sdkType('UpdateApplicationEmailPreferencesRequest')}","emailPreferences":{"primaryColour":"#112233","onlySendEssentialEmails":true}}`);
    assert.equal(res.status, 204, res.text);
    assert.deepEqual((await record()).emailPreferences, { primaryColour: '#112233', secondaryColour: '#45BDD1', onlySendEssentialEmails: true });
  });

  // Exact bytes with the SDK's explicit nulls (encodeDefaults): the tolerant reader reads a null as absent.
  it('creates an application from the exact CreateApplicationRequest bytes, nulls included', async () => {
    const res = await post('/platform/application', `{"name":"Null App","companyName":"Example Ltd","mailingAddress":"1 Example Street","privacyPolicy":null,"supportContact":null,"appLink":null,"emailPreferences":null,"logoUrl":null}`);
    assert.equal(res.status, 201, res.text);
    assertMatchesModel(res.body, ApplicationModel, 'POST /platform/application');
  });

  it('updates email preferences from the exact SDK bytes, nulls included', async () => {
    const res = await post(path, `{"type":"${sdkType('UpdateApplicationEmailPreferencesRequest')}","emailPreferences":{"senderEmail":null,"senderName":null,"primaryColour":"#445566","secondaryColour":null,"onlySendEssentialEmails":false,"callToAction":null}}`);
    assert.equal(res.status, 204, res.text);
    assert.deepEqual((await record()).emailPreferences, { primaryColour: '#445566', secondaryColour: '#45BDD1', onlySendEssentialEmails: false });
  });

  it('takes an Ed25519 key with x in standard Base64 and alg null, and reads x back as sent (with use)', async () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const x = (publicKey.export({ format: 'jwk' }) as { x: string }).x;
    const standardX = std(Buffer.from(x, 'base64url'));
    assert.notEqual(standardX, x, 'the test key must differ between the alphabets');
    const res = await post(`${path}/auth/key`, `{"type":"${sdkType('AddEd25519KeyRequest')}","kty":"OKP","use":"sig","kid":"ed-std","alg":null,"crv":"Ed25519","x":"${standardX}"}`);
    assert.equal(res.status, 204, res.text);
    // The SDK's platform test: assertEquals(ed25519Key.x, actualEd25519Key.x).
    assert.deepEqual((await record()).authKeys['ed-std'], { kty: 'OKP', crv: 'Ed25519', x: standardX, kid: 'ed-std', use: 'sig' });
  });

  it('takes an EC secp256k1 key', async () => {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ format: 'jwk' }) as { x: string; y: string };
    const res = await post(`${path}/auth/key`, `{"type":"${sdkType('AddEcKeyRequest')}","kty":"EC","use":"sig","kid":"k1","alg":"ES256K","crv":"secp256k1","x":"${jwk.x}","y":"${jwk.y}"}`);
    assert.equal(res.status, 204, res.text);
    assert.deepEqual((await record()).authKeys.k1, { kty: 'EC', crv: 'secp256k1', x: jwk.x, y: jwk.y, kid: 'k1', alg: 'ES256K', use: 'sig' });
  });

  it("takes the SDK platform test's secp256k1 key with alg ES256 and reads it back as sent", async () => {
    // PlatformApiTest, shouldAddEcAuthKey: ECKey.Builder(Curve.SECP256K1, x, y).algorithm(ES256).
    const x = 'L9Oy_4lde8GqwXyF9rRtkkTOr9iZF65S02JToBFzuPA';
    const y = 'ac69MlrUIJQXlSEsp1lBG6erAZjBwSA6M3dT7pBOtMU';
    const kid = randomUUID();
    const res = await post(`${path}/auth/key`, `{"type":"${sdkType('AddEcKeyRequest')}","kty":"EC","use":"sig","kid":"${kid}","alg":"ES256","crv":"secp256k1","x":"${x}","y":"${y}"}`);
    assert.equal(res.status, 204, res.text);
    assert.deepEqual((await record()).authKeys[kid], { kty: 'EC', crv: 'secp256k1', x, y, kid, alg: 'ES256', use: 'sig' });
    // alg names a signature the key cannot make: still refused.
    const p384 = await post(`${path}/auth/key`, `{"type":"${sdkType('AddEcKeyRequest')}","kty":"EC","use":"sig","kid":"${randomUUID()}","alg":"ES384","crv":"secp256k1","x":"${x}","y":"${y}"}`);
    assert.equal(p384.status, 400, p384.text);
  });

  it('manages owners: add, list in the owner model, remove, never the last', async () => {
    assert.equal((await post(`${path}/owner`, `{"userId":"${second.userId}"}`)).status, 204);
    assert.equal((await post(`${path}/owner`, `{"userId":"${second.userId}"}`)).status, 204, 'adding again changes nothing');
    const owners = await t.api.get(`${path}/owner`, { token: second.authToken, accept: sdkAccept() });
    assert.equal(owners.status, 200, 'the new owner manages the application');
    for (const entry of owners.body) assertMatchesModel(entry, ApplicationOwnerModel, 'GET …/owner');
    assert.deepEqual(owners.body, [
      { userId: owner.userId, email: owner.email, displayName: owner.displayName, orphan: false, foreign: false },
      { userId: second.userId, email: second.email, displayName: second.displayName, orphan: false, foreign: false },
    ]);
    assert.deepEqual((await record()).owners, [owner.userId, second.userId]);
    assert.equal((await post(`${path}/owner`, `{"userId":"${randomUUID()}"}`)).status, 404);

    const remove = (user: TestUser, userId: string) => t.api.delete(`${path}/owner`, { token: user.authToken, rawBody: `{"userId":"${userId}"}`, accept: sdkAccept() });
    assert.equal((await remove(owner, second.userId)).status, 204);
    assert.equal((await t.api.get(`${path}/owner`, { token: second.authToken })).status, 404, 'a former owner sees nothing');
    assert.equal((await remove(owner, second.userId)).status, 404);
    const last = await remove(owner, owner.userId);
    assert.equal(last.status, 409);
    assert.match(last.body.message, /at least one owner/);
  });

  it('shows the owner and user routes and the always-present emailPreferences in the OpenAPI document', async () => {
    const doc = (await t.api.get('/openapi.json')).body;
    const owner = doc.paths['/platform/application/{applicationId}/owner'];
    assert.ok(owner.get && owner.post && owner.delete);
    assert.ok(doc.paths['/platform/application/{applicationId}/user'].get);
    assert.match(JSON.stringify(doc.paths['/platform/application/{applicationId}'].get.responses['200']), /"required":\[[^\]]*"emailPreferences"/);
  });

  describe('third-party tokens and application users', () => {
    const issuer = `https://issuer-${randomUUID()}.example.com`;
    const ed = generateKeyPairSync('ed25519');
    const k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    const edStd = generateKeyPairSync('ed25519');
    const k1Es256 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    let appPath: string;

    before(async () => {
      const app = await createApplication(t.api, owner, applicationBody());
      appPath = `/platform/application/${app.applicationId}`;
      const edX = (ed.publicKey.export({ format: 'jwk' }) as { x: string }).x;
      const kJwk = k1.publicKey.export({ format: 'jwk' }) as { x: string; y: string };
      assert.equal((await post(`${appPath}/auth/key`, `{"type":"${sdkType('AddEd25519KeyRequest')}","kty":"OKP","use":"sig","kid":"ed","alg":"EdDSA","crv":"Ed25519","x":"${edX}"}`)).status, 204);
      assert.equal((await post(`${appPath}/auth/key`, `{"type":"${sdkType('AddEcKeyRequest')}","kty":"EC","use":"sig","kid":"k1","alg":"ES256K","crv":"secp256k1","x":"${kJwk.x}","y":"${kJwk.y}"}`)).status, 204);
      // As the SDK's platform test sends them: x in standard Base64; a secp256k1 key named ES256.
      const stdX = std(Buffer.from((edStd.publicKey.export({ format: 'jwk' }) as { x: string }).x, 'base64url'));
      assert.equal((await post(`${appPath}/auth/key`, `{"type":"${sdkType('AddEd25519KeyRequest')}","kty":"OKP","use":"sig","kid":"ed-std","alg":"EdDSA","crv":"Ed25519","x":"${stdX}"}`)).status, 204);
      const es = k1Es256.publicKey.export({ format: 'jwk' }) as { x: string; y: string };
      assert.equal((await post(`${appPath}/auth/key`, `{"type":"${sdkType('AddEcKeyRequest')}","kty":"EC","use":"sig","kid":"k1-es256","alg":"ES256","crv":"secp256k1","x":"${es.x}","y":"${es.y}"}`)).status, 204);
      assert.equal((await post(`${appPath}/auth/issuer`, `{"url":"${issuer}"}`)).status, 204);
    });

    const claims = (sub: string, extra: object = {}) => {
      const now = Math.floor(Date.now() / 1000);
      return { iss: issuer, aud: TEST_BASE_URL, sub, iat: now, exp: now + 600, ...extra };
    };
    const account = (token: string) => t.api.get('/account', { token, accept: sdkAccept() });

    it('verifies alg "Ed25519" against an OKP key registered as EdDSA, in either Base64 form', async () => {
      for (const encoding of ['base64url', 'base64'] as const) {
        const token = compactJws({ alg: 'Ed25519', kid: 'ed', typ: 'JWT' }, claims(`ed-${encoding}`, { email: `ed-${encoding}@example.com`, email_verified: true }), ed25519Signer(ed.privateKey), encoding);
        const res = await account(token);
        assert.equal(res.status, 200, `${encoding}: ${res.text}`);
        assert.equal(res.body.email, `ed-${encoding}@example.com`);
      }
      // Standard Base64 with padding and the characters only that alphabet has.
      const padded = compactJws({ alg: 'EdDSA', kid: 'ed' }, claims('padded', { name: 'Ünïcödé ~~~ ???' }), ed25519Signer(ed.privateKey), 'base64');
      assert.match(padded, /[+/=]/);
      assert.equal((await account(padded)).status, 200);
    });

    it('verifies ES256K tokens with a secp256k1 key, and refuses forged or expired ones', async () => {
      const good = compactJws({ alg: 'ES256K', kid: 'k1' }, claims('k1-user'), es256kSigner(k1.privateKey), 'base64url');
      assert.equal((await account(good)).status, 200);
      const forged = compactJws({ alg: 'ES256K', kid: 'k1' }, claims('k1-user'), es256kSigner(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).privateKey), 'base64');
      assert.equal((await account(forged)).status, 401);
      const expired = compactJws({ alg: 'Ed25519', kid: 'ed' }, claims('late', { exp: Math.floor(Date.now() / 1000) - 600 }), ed25519Signer(ed.privateKey), 'base64');
      assert.equal((await account(expired)).status, 401);
      const wrongAudience = compactJws({ alg: 'Ed25519', kid: 'ed' }, claims('aud', { aud: 'https://elsewhere.example' }), ed25519Signer(ed.privateKey), 'base64');
      assert.equal((await account(wrongAudience)).status, 401);
      const crit = compactJws({ alg: 'Ed25519', kid: 'ed', crit: ['x'], x: 1 }, claims('crit'), ed25519Signer(ed.privateKey), 'base64');
      assert.equal((await account(crit)).status, 401);
    });

    it('verifies tokens signed with a key whose x was sent in standard Base64, and with a secp256k1 key named ES256', async () => {
      const edToken = compactJws({ alg: 'Ed25519', kid: 'ed-std' }, claims('ed-std-user'), ed25519Signer(edStd.privateKey), 'base64');
      assert.equal((await account(edToken)).status, 200);
      for (const alg of ['ES256', 'ES256K']) {
        for (const encoding of ['base64url', 'base64'] as const) {
          const token = compactJws({ alg, kid: 'k1-es256' }, claims(`k1-es256-${alg}`), es256kSigner(k1Es256.privateKey), encoding);
          assert.equal((await account(token)).status, 200, `${alg} ${encoding}`);
        }
      }
      const forged = compactJws({ alg: 'ES256', kid: 'k1-es256' }, claims('k1-es256-ES256'), es256kSigner(k1.privateKey), 'base64url');
      assert.equal((await account(forged)).status, 401);
    });

    it("lists the application's users in the user model, a keyset page at a time", async () => {
      for (const sub of ['page-a', 'page-b', 'page-c']) {
        const token = compactJws({ alg: 'EdDSA', kid: 'ed' }, claims(sub, { email: `${sub}@example.com`, email_verified: true }), ed25519Signer(ed.privateKey), 'base64url');
        assert.equal((await account(token)).status, 200);
      }
      const all: Array<{ userId: string; foreignKey: string; lastUpdated: string }> = [];
      let last: string | undefined;
      for (;;) {
        const query = `pageSize=2${last ? `&lastUserRetrieved=${last}` : ''}`;
        const page = await t.api.get(`${appPath}/user?${query}`, { token: owner.authToken, accept: sdkAccept() });
        assert.equal(page.status, 200, page.text);
        assert.ok(page.body.length <= 2);
        for (const user of page.body) assertMatchesModel(user, ApplicationUserModel, 'GET …/user');
        all.push(...page.body);
        if (page.body.length < 2) break;
        last = page.body.at(-1).userId;
      }
      const ids = all.map((u) => u.userId);
      assert.deepEqual(ids, [...ids].sort(), 'in id order');
      assert.equal(new Set(ids).size, ids.length, 'no user twice');
      for (const sub of ['page-a', 'page-b', 'page-c', 'k1-user']) assert.ok(all.some((u) => u.foreignKey === sub), sub);
      const a = all.find((u) => u.foreignKey === 'page-a')!;
      // The docs' form (get-application-users): "lastUpdated": "2023-08-03T08:37:41Z".
      assert.match(a.lastUpdated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.ok(Math.abs(Date.parse(a.lastUpdated) - Date.now()) < 600_000, 'the time the user was last seen');
      assert.deepEqual({ ...a, userId: undefined, lastUpdated: undefined }, {
        userId: undefined, foreignKey: 'page-a', displayName: null, email: 'page-a@example.com', emailVerified: true, telephone: null, telephoneVerified: false,
        emailIndexed: true, telephoneIndexed: false, foreignKeyIndexed: true, lastUpdated: undefined,
      });
      assert.equal((await t.api.get(`${appPath}/user?pageSize=0`, { token: owner.authToken })).status, 400);
      assert.equal((await t.api.get(`${appPath}/user`, { token: second.authToken })).status, 404, 'not an owner');
    });
  });
});
