import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { claimLock } from '../helpers/locks.js';
import { createLegacyUser, createUser, uniqueEmail } from '../helpers/factories.js';
import { assertSdkModel, sdkRequest, sealed, SDK_MODELS } from '../helpers/sdk-wire.js';
import { useService } from '../helpers/service.js';

/**
 * The tolerant reader (item 1 of issue 14): bodies exactly as the Kotlin SDK writes them (explicit
 * nulls for unset optionals, `"type"` members of sealed classes, members we do not know) are
 * accepted on every route, and a known member of the wrong type is still a 400.
 */
describe('tolerant reader: SDK bodies with explicit nulls, type members and unknown members', () => {
  const t = useService({ withUser: true });
  // A direct caller looks people up only while administering a lock (issue 27 point 1).
  before(() => claimLock(t, t.user));

  it('registration v3 with displayName and ephemeralKey null, and an unknown member', async () => {
    const email = uniqueEmail('sdk');
    const res = await sdkRequest(t.api, 'POST', '/auth/register?force=false', {
      version: 3,
      body: { email, password: 'correct horse battery', displayName: null, ephemeralKey: null, marketingOptIn: true },
    });
    assert.equal(res.status, 200, res.text);
    assertSdkModel(res.body, SDK_MODELS.BasicTokenResponse);
    const account = await sdkRequest(t.api, 'GET', '/account', { token: res.body.authToken });
    assert.equal(account.status, 200);
    assert.equal(account.body.displayName, null);
  });

  it('a null in a required member, or a known member of the wrong type, is still a 400', async () => {
    for (const body of [
      { email: null, password: 'correct horse battery', displayName: null, ephemeralKey: null },
      { email: 5, password: 'correct horse battery', displayName: null, ephemeralKey: null },
      { email: uniqueEmail(), password: 'correct horse battery', displayName: 7, ephemeralKey: null },
      { email: uniqueEmail(), password: 'short', displayName: null, ephemeralKey: null },
    ]) {
      const res = await sdkRequest(t.api, 'POST', '/auth/register', { version: 3, body });
      assert.equal(res.status, 400, JSON.stringify(body));
    }
  });

  it('login v2 with an unknown member', async () => {
    const res = await sdkRequest(t.api, 'POST', '/auth/token', { version: 2, body: { email: t.user.email, password: t.user.password, deviceName: 'Pixel' } });
    assert.equal(res.status, 200, res.text);
    assertSdkModel(res.body, SDK_MODELS.BasicTokenResponse);
  });

  it('PUT /device/{id}: sealed settings with nested type members and nulls inside usageRequirements', async () => {
    const lock = await claimLock(t, t.user);
    const location = sealed('UpdateLockSettingLocationUsageRequirementRequest', {
      location: { latitude: 51.5, longitude: -0.12, enabled: true, radius: 150, accuracy: 50 },
    });
    const body = sealed('UpdateLockSettingRequest', { settings: sealed('UpdateLockSettingUsageRequirementRequest', { usageRequirements: location }) });
    const res = await sdkRequest(t.api, 'PUT', `/device/${lock.id}`, { token: t.user.authToken, body });
    assert.equal(res.status, 204, res.text);
    const read = await sdkRequest(t.api, 'GET', `/device/${lock.id}`, { token: t.user.authToken });
    assert.equal(read.body.settings.usageRequirements.location.radius, 150);

    const time = sealed('UpdateLockSettingTimeUsageRequirementRequest', {
      time: [{ start: '08:00', end: '18:00', timezone: 'Europe/London', days: ['MONDAY', 'FRIDAY'], exceptions: null }],
      location: null,
    });
    const timed = sealed('UpdateLockSettingRequest', { settings: sealed('UpdateLockSettingUsageRequirementRequest', { usageRequirements: time }) });
    assert.equal((await sdkRequest(t.api, 'PUT', `/device/${lock.id}`, { token: t.user.authToken, body: timed })).status, 204);
    const after = await sdkRequest(t.api, 'GET', `/device/${lock.id}`, { token: t.user.authToken });
    assert.deepEqual(after.body.settings.usageRequirements.time[0].days, ['MONDAY', 'FRIDAY']);

    const name = sealed('UpdateLockNameRequest', { name: 'Front door' });
    assert.equal((await sdkRequest(t.api, 'PUT', `/device/${lock.id}`, { token: t.user.authToken, body: name })).status, 204);

    // Known members keep their checks, however deep.
    const badLatitude = sealed('UpdateLockSettingRequest', {
      settings: sealed('UpdateLockSettingUsageRequirementRequest', {
        usageRequirements: sealed('UpdateLockSettingLocationUsageRequirementRequest', { location: { latitude: 'north', longitude: 0, enabled: true, radius: 1, accuracy: 1 } }),
      }),
    });
    assert.equal((await sdkRequest(t.api, 'PUT', `/device/${lock.id}`, { token: t.user.authToken, body: badLatitude })).status, 400);
    const badDays = sealed('UpdateLockSettingRequest', {
      settings: sealed('UpdateLockSettingUsageRequirementRequest', {
        usageRequirements: sealed('UpdateLockSettingTimeUsageRequirementRequest', { time: [{ start: '08:00', end: '18:00', timezone: 'Europe/London', days: 'MONDAY' }] }),
      }),
    });
    assert.equal((await sdkRequest(t.api, 'PUT', `/device/${lock.id}`, { token: t.user.authToken, body: badDays })).status, 400);
  });

  it('application create with null optionals and email preferences, update as a sealed class, auth key with alg null', async () => {
    const owner = await createUser(t.api);
    const create = {
      name: 'SDK app',
      companyName: 'Example Ltd',
      mailingAddress: '1 Example Street',
      privacyPolicy: null,
      supportContact: null,
      appLink: null,
      emailPreferences: { senderEmail: null, senderName: 'Example', primaryColour: null, secondaryColour: null, onlySendEssentialEmails: null, callToAction: null },
      logoUrl: null,
    };
    const created = await sdkRequest(t.api, 'POST', '/platform/application', { token: owner.authToken, body: create });
    assert.equal(created.status, 201, created.text);
    const applicationId = created.body.applicationId as string;

    const update = sealed('UpdateApplicationCompanyNameRequest', { companyName: 'Renamed Ltd' });
    const updated = await sdkRequest(t.api, 'POST', `/platform/application/${applicationId}`, { token: owner.authToken, body: update });
    assert.ok(updated.status < 300, updated.text);

    const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    const key = sealed('AddEd25519KeyRequest', { kty: 'OKP', use: 'sig', kid: 'sdk-key-1', alg: null, crv: jwk.crv, x: jwk.x });
    const added = await sdkRequest(t.api, 'POST', `/platform/application/${applicationId}/auth/key`, { token: owner.authToken, body: key });
    assert.ok(added.status < 300, added.text);

    const read = await sdkRequest(t.api, 'GET', `/platform/application/${applicationId}`, { token: owner.authToken });
    assert.equal(read.body.companyName, 'Renamed Ltd');
    assert.equal(read.body.authKeys['sdk-key-1'].x, jwk.x);
    assert.equal(read.body.authKeys['sdk-key-1'].type, undefined, 'the sealed-class name is not stored as a key member');

    const badColour = { ...create, emailPreferences: { ...create.emailPreferences, primaryColour: 12 } };
    assert.equal((await sdkRequest(t.api, 'POST', '/platform/application', { token: owner.authToken, body: badColour })).status, 400);
  });

  it('directory query with the unset keys as null', async () => {
    const other = await createLegacyUser(t.api);
    const res = await sdkRequest(t.api, 'POST', '/directory/query', {
      token: t.user.authToken,
      body: { email: other.email, telephone: null, localKey: null, foreignKey: null, identity: null },
    });
    assert.equal(res.status, 200, res.text);
    assertSdkModel(res.body, SDK_MODELS.BasicUserPublicKeyResponse);
    assert.equal(res.body.id, other.userId);
    const wrongType = await sdkRequest(t.api, 'POST', '/directory/query', { token: t.user.authToken, body: { email: 42, telephone: null } });
    assert.equal(wrongType.status, 400);
  });
});
