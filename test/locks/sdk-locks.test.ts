import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { createLegacyUser, uniqueEmail, type AnyUser, type LegacyUser } from '../helpers/factories.js';
import { claimLock, createSite, shareLock } from '../helpers/locks.js';
import { assertMatchesModel, LockModel, LockUserModel, sdkType, UserDetailsModel, UserLockModel } from '../helpers/sdk-models.js';
import { sdkAccept } from '../helpers/sdk-wire.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * Issue 14, items 2 and 3, as the official SDK (doordeck-headless-sdk) sends and reads them:
 * LockOperationsClient's requests byte for byte (sealed `type` members, Accept lists), and every
 * answer checked against the SDK's response models.
 */
describe('locks and lock users, as the official SDK sees them', () => {
  let t: TestService;
  let admin: LegacyUser;
  let member: LegacyUser;
  let lockId: string;
  let siteId: string;
  let tileId: string;

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never' });
    // v1: the SDK's models want every member's publicKey, which a v3 account has only once it
    // certified a key or read GET /account.
    [admin, member] = await Promise.all([createLegacyUser(t.api), createLegacyUser(t.api)]);
    siteId = (await createSite(t)).id;
    lockId = (await claimLock(t, admin, { siteId })).id;
    await shareLock(t, lockId, admin, member.userId);
    tileId = randomUUID();
    assert.equal((await t.api.put(`/device/${lockId}/tile/${tileId}`, { token: admin.authToken })).status, 204);
  });
  after(() => t?.close());

  /** LockOperationsClient.updateLockProperties: PUT, Content-Type application/json, no version. */
  const sdkPut = (user: AnyUser, rawBody: string) => t.api.put(`/device/${lockId}`, { token: user.authToken, rawBody, accept: sdkAccept() });
  /** getSingleLockRequest: v3, no Content-Type. */
  const sdkGetLock = async (user: AnyUser) => {
    const res = await t.api.get(`/device/${lockId}`, { token: user.authToken, accept: sdkAccept(3) });
    assert.equal(res.status, 200, res.text);
    assertMatchesModel(res.body, LockModel, 'GET /device/{id} v3');
    return res.body;
  };
  const settingsBody = (inner: string) => `{"type":"${sdkType('UpdateLockSettingRequest')}","settings":${inner}}`;
  const usageBody = (inner: string) => settingsBody(`{"type":"${sdkType('UpdateLockSettingUsageRequirementRequest')}","usageRequirements":${inner}}`);

  it('shows settings.tiles and settings.hidden on every lock shape, in every version', async () => {
    for (const version of [undefined, 2, 3] as const) {
      const one = await t.api.get(`/device/${lockId}`, { token: admin.authToken, accept: sdkAccept(version) });
      assertMatchesModel(one.body, LockModel, `GET /device/{id} v${version ?? 1}`);
      assert.deepEqual(one.body.settings.tiles, [tileId]);
      assert.equal(one.body.settings.hidden, false);
    }
    const list = await t.api.get('/device', { token: admin.authToken, accept: sdkAccept() });
    const pin = await sdkPut(admin, `{"type":"${sdkType('UpdateLockFavouriteRequest')}","favourite":true}`);
    assert.equal(pin.status, 204, pin.text);
    const pinned = await t.api.get('/device/favourite', { token: admin.authToken, accept: sdkAccept() });
    const site = await t.api.get(`/site/${siteId}/device`, { token: admin.authToken, accept: sdkAccept() });
    for (const [what, res] of [['GET /device', list], ['GET /device/favourite', pinned], ['GET /site/{id}/device', site]] as const) {
      assert.equal(res.status, 200, what);
      assert.equal(res.body.length, 1, what);
      assertMatchesModel(res.body[0], LockModel, what);
      assert.deepEqual(res.body[0].settings.tiles, [tileId], what);
    }
  });

  it('shows settings.tiles, settings.hidden and foreign in the OpenAPI document', async () => {
    const doc = JSON.stringify((await t.api.get('/openapi.json')).body.paths['/device/{lockId}'].get.responses['200']);
    assert.match(doc, /"hidden"/);
    assert.match(doc, /"tiles"/);
    assert.match(JSON.stringify((await t.api.get('/openapi.json')).body.paths['/device/{lockId}/users'].get.responses['200']), /"foreign"/);
  });

  it('sets settings.hidden per caller, for any member, and reads it back', async () => {
    const hide = await sdkPut(member, settingsBody(`{"type":"${sdkType('LockSettingsHiddenRequest')}","hidden":true}`));
    assert.equal(hide.status, 204, hide.text);
    assert.equal((await sdkGetLock(member)).settings.hidden, true);
    assert.equal((await sdkGetLock(admin)).settings.hidden, false, "another member's flag is their own");
    assert.equal((await sdkPut(member, settingsBody(`{"type":"${sdkType('LockSettingsHiddenRequest')}","hidden":false}`))).status, 204);
    assert.equal((await sdkGetLock(member)).settings.hidden, false);
    // A USER still may not change the lock's own settings.
    assert.equal((await sdkPut(member, settingsBody(`{"type":"${sdkType('LockSettingsDefaultNameRequest')}","defaultName":"Mine"}`))).status, 403);
  });

  it('updates time and location requirements independently, and removes each on its own', async () => {
    const time = usageBody(`{"type":"${sdkType('UpdateLockSettingTimeUsageRequirementRequest')}","time":[{"start":"08:00","end":"18:30","timezone":"Europe/London","days":["MONDAY","FRIDAY"]}]}`);
    const location = usageBody(`{"type":"${sdkType('UpdateLockSettingLocationUsageRequirementRequest')}","location":{"latitude":51.5007,"longitude":-0.1246,"enabled":true,"radius":75,"accuracy":30}}`);
    assert.equal((await sdkPut(admin, time)).status, 204);
    assert.equal((await sdkPut(admin, location)).status, 204);
    let requirements = (await sdkGetLock(admin)).settings.usageRequirements;
    assert.deepEqual(requirements, {
      time: [{ start: '08:00', end: '18:30', timezone: 'Europe/London', days: ['MONDAY', 'FRIDAY'] }],
      location: { latitude: 51.5007, longitude: -0.1246, enabled: true, radius: 75, accuracy: 30 },
    });

    const noTime = usageBody(`{"type":"${sdkType('UpdateLockSettingTimeUsageRequirementRequest')}","time":[]}`);
    assert.equal((await sdkPut(admin, noTime)).status, 204);
    requirements = (await sdkGetLock(admin)).settings.usageRequirements;
    assert.equal(requirements.time, undefined);
    assert.equal(requirements.location.radius, 75, 'removing the time requirement keeps the location');

    assert.equal((await sdkPut(admin, time)).status, 204);
    const noLocation = usageBody(`{"type":"${sdkType('UpdateLockSettingLocationUsageRequirementRequest')}","location":null}`);
    assert.equal((await sdkPut(admin, noLocation)).status, 204);
    requirements = (await sdkGetLock(admin)).settings.usageRequirements;
    assert.equal(requirements.location, undefined);
    assert.equal(requirements.time.length, 1, 'removing the location keeps the time requirement');
    assert.equal((await sdkPut(admin, noTime)).status, 204);
    assert.deepEqual((await sdkGetLock(admin)).settings.usageRequirements, {});
  });

  it('always shows enabled and whole-metre radius and accuracy on a location requirement (defaults 100 and 200)', async () => {
    // The spec's own form: enabled, radius and accuracy may be left out, or be fractional.
    const spec = await t.api.put(`/device/${lockId}`, { token: admin.authToken, body: { settings: { usageRequirements: { location: { latitude: 10.25, longitude: 20.5 } } } } });
    assert.equal(spec.status, 204, spec.text);
    assert.deepEqual((await sdkGetLock(admin)).settings.usageRequirements.location, { latitude: 10.25, longitude: 20.5, enabled: true, radius: 100, accuracy: 200 });
    await t.api.put(`/device/${lockId}`, { token: admin.authToken, body: { settings: { usageRequirements: { location: { latitude: 1, longitude: 2, enabled: false, radius: 12.6, accuracy: 0.2 } } } } });
    assert.deepEqual((await sdkGetLock(admin)).settings.usageRequirements.location, { latitude: 1, longitude: 2, enabled: false, radius: 13, accuracy: 1 });
    await t.api.put(`/device/${lockId}`, { token: admin.authToken, body: { settings: { usageRequirements: null } } });
  });

  it('refuses a bad part with 400 and changes nothing', async () => {
    const bad = usageBody(`{"type":"${sdkType('UpdateLockSettingLocationUsageRequirementRequest')}","location":{"latitude":91,"longitude":0,"enabled":true,"radius":5,"accuracy":5}}`);
    const res = await sdkPut(admin, bad);
    assert.equal(res.status, 400);
    assert.match(res.body.message, /latitude/);
    assert.deepEqual((await sdkGetLock(admin)).settings.usageRequirements, {});
  });

  it('gives lock users and user-with-locks foreign and a publicKey: the legacy key, else the certified Ed25519 key', async () => {
    // A user as the SDK registers them (v3: no legacy RSA key), who then certifies an ephemeral key.
    const email = uniqueEmail('sdk');
    const registered = await t.api.post('/auth/register', { rawBody: JSON.stringify({ email, password: 'correct horse battery', displayName: 'SDK user' }), accept: sdkAccept(3) });
    assert.equal(registered.status, 200, registered.text);
    const token = registered.body.authToken as string;
    const userId = decodeJwt(token).sub!;
    const spki = (generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' }) as Buffer).toString('base64');
    const certified = await t.api.post('/auth/certificate', { token, rawBody: `{"ephemeralKey":"${spki}"}`, accept: sdkAccept() });
    assert.equal(certified.status, 200, certified.text);
    const account = await t.api.get('/account', { token, accept: sdkAccept() });
    assert.equal(account.body.publicKey, spki, 'GET /account shows the certified key too');
    await shareLock(t, lockId, admin, userId);

    const users = await t.api.get(`/device/${lockId}/users`, { token: admin.authToken, accept: sdkAccept() });
    assert.equal(users.status, 200);
    for (const entry of users.body) assertMatchesModel(entry, UserLockModel, 'GET /device/{id}/users');
    const byId = Object.fromEntries(users.body.map((u: { userId: string }) => [u.userId, u]));
    assert.equal(byId[userId].publicKey, spki);
    assert.equal(byId[userId].foreign, false);
    assert.equal(byId[admin.userId].publicKey, admin.publicKey, 'the legacy key wins');

    const userWithLocks = await t.api.get(`/user/${userId}`, { token: admin.authToken, accept: sdkAccept() });
    assert.equal(userWithLocks.status, 200);
    assertMatchesModel(userWithLocks.body, LockUserModel, 'GET /user/{id}');
    assert.equal(userWithLocks.body.publicKey, spki);
    assert.deepEqual(userWithLocks.body.devices, [{ deviceId: lockId, role: 'USER', start: null, end: null, pending: false }]);

    const details = await t.api.get('/account', { token, accept: sdkAccept() });
    assertMatchesModel(details.body, UserDetailsModel, 'GET /account');
    assert.equal(details.body.publicKey, spki);

    // A newer certified key replaces it.
    const newer = (generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' }) as Buffer).toString('base64');
    assert.equal((await t.api.post('/auth/certificate', { token, rawBody: `{"ephemeralKey":"${newer}"}`, accept: sdkAccept() })).status, 200);
    assert.equal((await t.api.get(`/user/${userId}`, { token: admin.authToken })).body.publicKey, newer);
  });
});
