import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { certify, type Signer } from '../execute/support.js';
import { type TestUser } from '../helpers/factories.js';
import { claimLock, createSite, createVerifiedUser, shareLock } from '../helpers/locks.js';
import { AuditModel, assertMatchesModel } from '../helpers/sdk-models.js';
import { sdkExecute, sdkOperationToken, sdkRequest } from '../helpers/sdk-wire.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * Issue 28, point 5: the four types the SDK's AuditEvent adds (settings, tile links and unlinks),
 * `userAgent` from the SDK's User-Agent and `issuer.ip` (TRUST_PROXY honoured), read with the SDK's
 * getLockAuditTrailRequest / getAuditForUserRequest and checked against BasicAuditResponse; v1
 * keeps the spec's seven types.
 */
describe('audit: the SDK’s audit types, userAgent and issuer.ip', () => {
  let t: TestService;
  let admin: Signer;
  let member: TestUser;
  const SDK_AGENT = 'KMP SDK JVM - v1.2.3';
  const PROXIED = { 'x-forwarded-for': '203.0.113.42' };
  const now = () => Math.floor(Date.now() / 1000);

  before(async () => {
    // The test client connects from loopback: the proxy the service believes.
    t = await startTestService({ CERT_CHECK: 'never', TRUST_PROXY: '127.0.0.1,::1' });
    admin = await certify(t, await createVerifiedUser(t));
    member = await createVerifiedUser(t);
  });
  after(() => t?.close());

  const lockLog = async (lockId: string, version: 1 | 2 = 2) => {
    const res = await sdkRequest(t.api, 'GET', `/device/${lockId}/log?start=0&end=${now() + 60}`, { token: admin.authToken, version });
    assert.equal(res.status, 200, res.text);
    return res.body as any[];
  };

  it('records SETTING_CHANGED for a signed MUTATE_SETTING with the SDK’s user agent and the forwarded address', async () => {
    const lock = await claimLock(t, admin);
    const token = sdkOperationToken(admin, lock.id, '{"type":"MUTATE_SETTING","unlockDuration":12,"unlockBetween":null}', { now: now() });
    const res = await sdkExecute(t.api, admin.authToken, lock.id, token, { userAgent: SDK_AGENT, proxyHeaders: PROXIED });
    assert.equal(res.status, 200, res.text);
    const [entry] = await lockLog(lock.id);
    assertMatchesModel(entry, AuditModel, 'lock audit v2');
    assert.equal(entry.type, 'SETTING_CHANGED');
    assert.deepEqual(entry.issuer, { userId: admin.userId, email: admin.email, displayName: admin.displayName, ip: '203.0.113.42' });
    assert.deepEqual(entry.userAgent, { type: 'KMP_SDK_JVM', version: '1.2.3' });
    assert.equal(entry.rejected, false);
    // v1 keeps the spec's seven types: the claim shows, the settings change does not.
    assert.deepEqual((await lockLog(lock.id, 1)).map((e) => e.type), ['OWNER_ASSIGNED']);
  });

  it('records a refused settings change, and one made with PUT /device/{id}; another client is no SDK user agent', async () => {
    const lock = await claimLock(t, admin);
    await shareLock(t, lock.id, admin, member.userId);
    const user = await certify(t, member);
    const refused = await sdkExecute(t.api, user.authToken, lock.id, sdkOperationToken(user, lock.id, '{"type":"MUTATE_SETTING","unlockDuration":3,"unlockBetween":null}', { now: now() }), { userAgent: 'KMP SDK ANDROID - v2.0.0' });
    assert.equal(refused.status, 403);
    const put = await t.api.put(`/device/${lock.id}`, { token: admin.authToken, body: { settings: { defaultName: 'Front door', permittedAddress: ['10.0.0.0/8'] } }, headers: { 'user-agent': 'Mozilla/5.0' } });
    assert.equal(put.status, 204, put.text);
    const [changed, refusal] = await lockLog(lock.id);
    for (const entry of [changed, refusal]) assertMatchesModel(entry, AuditModel, 'lock audit v2');
    assert.deepEqual([refusal.type, refusal.rejected, refusal.issuer.userId, refusal.userAgent], ['SETTING_CHANGED', true, member.userId, { type: 'KMP_SDK_ANDROID', version: '2.0.0' }]);
    assert.deepEqual([changed.type, changed.rejected, changed.userAgent, changed.issuer.ip], ['SETTING_CHANGED', false, null, '127.0.0.1']);
    assert.match(changed.message, /defaultName/);
    assert.match(changed.message, /permittedAddresses/);
  });

  it('records TILE_ASSOCIATED and TILE_DISASSOCIATED for v1 and v2 links, once per lock whose link changed', async () => {
    const siteId = (await createSite(t)).id;
    const [a, b] = [(await claimLock(t, admin, { siteId })).id, (await claimLock(t, admin, { siteId })).id];
    const tile = randomUUID();
    assert.equal((await sdkRequest(t.api, 'PUT', `/device/${a}/tile/${tile}`, { token: admin.authToken, userAgent: SDK_AGENT })).status, 204);
    assert.equal((await sdkRequest(t.api, 'PUT', `/tile/${tile}`, { token: admin.authToken, version: 2, body: { siteId, devices: [a, b] }, userAgent: SDK_AGENT })).status, 204);
    assert.equal((await sdkRequest(t.api, 'PUT', `/tile/${tile}`, { token: admin.authToken, version: 2, body: { siteId, devices: [b] } })).status, 204);
    assert.equal((await sdkRequest(t.api, 'DELETE', `/device/${b}/tile/${tile}`, { token: admin.authToken })).status, 204);
    const types = async (lockId: string) => (await lockLog(lockId)).filter((e) => e.type.startsWith('TILE_')).reverse();
    const onA = await types(a);
    const onB = await types(b);
    for (const entry of [...onA, ...onB]) assertMatchesModel(entry, AuditModel, 'lock audit v2');
    assert.deepEqual(onA.map((e) => e.type), ['TILE_ASSOCIATED', 'TILE_DISASSOCIATED'], 'linked once by v1; v2 kept it, then dropped it');
    assert.deepEqual(onB.map((e) => e.type), ['TILE_ASSOCIATED', 'TILE_DISASSOCIATED']);
    assert.deepEqual(onA[0].userAgent, { type: 'KMP_SDK_JVM', version: '1.2.3' });
    assert.deepEqual((await lockLog(a, 1)).map((e) => e.type), ['OWNER_ASSIGNED']);
  });

  it('shows the new types and the client in the user log, never another administrator’s address', async () => {
    const lock = await claimLock(t, admin);
    const user = await certify(t, member);
    const share = sdkOperationToken(admin, lock.id, `{"type":"ADD_USER","user":"${member.userId}","publicKey":"${member.key.publicKeyBase64}","role":null,"start":null,"end":null}`, { now: now() });
    assert.equal((await sdkExecute(t.api, admin.authToken, lock.id, share, { userAgent: SDK_AGENT, proxyHeaders: PROXIED })).status, 200);
    const attempt = sdkOperationToken(user, lock.id, '{"type":"MUTATE_SETTING","unlockDuration":4,"unlockBetween":null}', { now: now() });
    assert.equal((await sdkExecute(t.api, user.authToken, lock.id, attempt, { userAgent: SDK_AGENT, proxyHeaders: { 'x-forwarded-for': '198.51.100.7' } })).status, 403);
    const log = await sdkRequest(t.api, 'GET', `/user/${member.userId}/log?start=0&end=${now() + 60}`, { token: member.authToken, version: 2 });
    assert.equal(log.status, 200, log.text);
    for (const entry of log.body) assertMatchesModel(entry, AuditModel, 'user audit');
    const mine = log.body.filter((e: { deviceId: string }) => e.deviceId === lock.id);
    const refusal = mine.find((e: { type: string }) => e.type === 'SETTING_CHANGED');
    const shared = mine.find((e: { type: string }) => e.type === 'LOCK_SHARED');
    assert.deepEqual([refusal.issuer.ip, refusal.userAgent], ['198.51.100.7', { type: 'KMP_SDK_JVM', version: '1.2.3' }], 'their own action, their own address');
    assert.equal(shared.issuer.ip, null, "the admin's address is not the member's to see");
    // The admin sees both addresses in the lock's log.
    const byType = new Map((await lockLog(lock.id)).map((e) => [e.type, e]));
    assert.equal(byType.get('LOCK_SHARED').issuer.ip, '203.0.113.42');
  });

  it('believes X-Forwarded-For only from TRUST_PROXY', async () => {
    const other = await startTestService({ CERT_CHECK: 'never' });
    try {
      const owner = await certify(other, await createVerifiedUser(other));
      const lock = await claimLock(other, owner);
      const token = sdkOperationToken(owner, lock.id, '{"type":"MUTATE_SETTING","unlockDuration":7,"unlockBetween":null}', { now: now() });
      assert.equal((await sdkExecute(other.api, owner.authToken, lock.id, token, { userAgent: SDK_AGENT, proxyHeaders: PROXIED })).status, 200);
      const res = await sdkRequest(other.api, 'GET', `/device/${lock.id}/log?start=0&end=${now() + 60}`, { token: owner.authToken, version: 2 });
      assert.equal(res.body[0].type, 'SETTING_CHANGED');
      assert.equal(res.body[0].issuer.ip, '127.0.0.1');
    } finally {
      await other.close();
    }
  });
});
