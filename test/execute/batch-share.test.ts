import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { lockConfig } from '../../src/locks/config.js';
import { assertError } from '../accounts/support.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { auditEntriesOf, claimLock, createSite, createVerifiedUser, shareLock } from '../helpers/locks.js';
import { assertMatchesModel, EVERY_CAPABILITY, LockModel } from '../helpers/sdk-models.js';
import { sdkExecute, sdkOperationToken, sdkRequest, sdkShareJson } from '../helpers/sdk-wire.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { certify, type Signer } from './support.js';

/**
 * Issue 28, point 2: BATCH_ADD_USER as LockOperationsClient.batchShareLockRequest sends it (only to
 * a lock whose settings.capabilities names BATCH_SHARING_25), and capabilities on every lock shape
 * the SDK decodes, each of them doing what it says.
 */
describe('BATCH_ADD_USER and capabilities, as the official SDK sends and reads them', () => {
  let t: TestService;
  let admin: Signer;
  let invitees: TestUser[];
  const now = () => Math.floor(Date.now() / 1000);

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never' });
    admin = await certify(t, await createVerifiedUser(t));
    invitees = await Promise.all(Array.from({ length: 26 }, () => createVerifiedUser(t)));
  });
  after(() => t?.close());

  const batch = (users: TestUser[], role: 'ADMIN' | 'USER' | undefined = undefined, window: { start?: number; end?: number } = {}) =>
    `{"type":"BATCH_ADD_USER","users":[${users.map((u) => sdkShareJson({ user: u.userId, publicKey: u.key.publicKeyBase64, ...(role ? { role } : {}), ...window })).join(',')}]}`;
  const send = (signer: Signer, lockId: string, operation: string, jti?: string) =>
    sdkExecute(t.api, signer.authToken, lockId, sdkOperationToken(signer, lockId, operation, { now: now(), ...(jti ? { jti } : {}) }));
  const usersOf = async (lockId: string) => (await t.api.get(`/device/${lockId}/users`, { token: admin.authToken })).body as Array<{ userId: string; role: string; start: number | null; end: number | null }>;

  it('advertises BATCH_SHARING_25 on the lock the SDK reads first (getSingleLockRequest, v3), then shares 25 users in one operation', async () => {
    const lock = await claimLock(t, admin);
    const read = await sdkRequest(t.api, 'GET', `/device/${lock.id}`, { token: admin.authToken, version: 3 });
    assert.equal(read.status, 200, read.text);
    assertMatchesModel(read.body, LockModel, 'GET /device/{id} v3');
    assert.equal(read.body.settings.capabilities.BATCH_SHARING_25, 'SUPPORTED', 'the SDK batches only when the lock names it');

    const end = now() + 86_400;
    const jti = crypto.randomUUID();
    const res = await send(admin, lock.id, batch(invitees.slice(0, 25), 'USER', { end }), jti);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {});
    const listed = new Map((await usersOf(lock.id)).map((u) => [u.userId, u]));
    for (const invitee of invitees.slice(0, 25)) assert.deepEqual((({ role, end }) => ({ role, end }))(listed.get(invitee.userId)!), { role: 'USER', end });
    const shared = (await auditEntriesOf(t, lock.id)).filter((e) => e.type === 'LOCK_SHARED' && !e.rejected);
    assert.deepEqual(shared.map((e) => e.subject_user_id).sort(), invitees.slice(0, 25).map((u) => u.userId).sort(), 'one LOCK_SHARED per user');
    assert.ok(shared.every((e) => e.actor_user_id === admin.userId));
    const config = await lockConfig(t.service.ctx.db.kysely, lock.id);
    for (const invitee of invitees.slice(0, 25)) assert.ok(config!.users.some((u) => u.userId === invitee.userId), 'the lock is told of every one');

    const replay = await sdkExecute(t.api, admin.authToken, lock.id, sdkOperationToken(admin, lock.id, batch(invitees.slice(0, 1)), { now: now(), jti }));
    assertError(replay, 409);
  });

  it('refuses more than 25 users, the same user twice and an empty list (400), sharing nobody', async () => {
    const lock = await claimLock(t, admin);
    const tooMany = await send(admin, lock.id, batch(invitees));
    assertError(tooMany, 400);
    assert.match(tooMany.body.message, /operation\.users/);
    const twice = await send(admin, lock.id, batch([invitees[0]!, invitees[1]!, invitees[0]!]));
    assertError(twice, 400);
    assert.match(twice.body.message, /operation\.users\[2\]\.user/);
    assertError(await send(admin, lock.id, '{"type":"BATCH_ADD_USER","users":[]}'), 400);
    const badKey = await send(admin, lock.id, `{"type":"BATCH_ADD_USER","users":[${sdkShareJson({ user: invitees[0]!.userId, publicKey: '***' })}]}`);
    assertError(badKey, 400);
    assert.match(badKey.body.message, /operation\.users\[0\]\.publicKey/);
    assert.deepEqual((await usersOf(lock.id)).map((u) => u.userId), [admin.userId]);
  });

  it('is all or none: an unknown user (404) or one share refused (409, audited) leaves everyone out, the token unused', async () => {
    const lock = await claimLock(t, admin);
    const unknown = await send(admin, lock.id, `{"type":"BATCH_ADD_USER","users":[${sdkShareJson({ user: invitees[0]!.userId, publicKey: invitees[0]!.key.publicKeyBase64 })},${sdkShareJson({ user: crypto.randomUUID(), publicKey: invitees[0]!.key.publicKeyBase64 })}]}`);
    assertError(unknown, 404);
    assert.deepEqual((await usersOf(lock.id)).map((u) => u.userId), [admin.userId]);

    // The last ADMIN demoting themselves, third of three: refused, the first two rolled back.
    const jti = crypto.randomUUID();
    const operation = `{"type":"BATCH_ADD_USER","users":[${[invitees[0]!, invitees[1]!].map((u) => sdkShareJson({ user: u.userId, publicKey: u.key.publicKeyBase64 })).join(',')},${sdkShareJson({ user: admin.userId, publicKey: admin.key.publicKeyBase64, role: 'USER' })}]}`;
    const refused = await send(admin, lock.id, operation, jti);
    assertError(refused, 409);
    assert.deepEqual((await usersOf(lock.id)).map((u) => u.userId), [admin.userId]);
    const last = (await auditEntriesOf(t, lock.id)).at(-1)!;
    assert.deepEqual([last.type, last.rejected, last.subject_user_id], ['LOCK_SHARED', 1, admin.userId]);
    // The token was not spent by the refusal: the same jti with a batch that holds is carried out.
    assert.equal((await send(admin, lock.id, batch([invitees[0]!]), jti)).status, 200);
  });

  it('is ADMIN only: a USER is refused (403), audited, nobody shared', async () => {
    const lock = await claimLock(t, admin);
    const member = await certify(t, invitees[5]!);
    await shareLock(t, lock.id, admin, member.userId);
    const res = await send(member, lock.id, batch([invitees[6]!, invitees[7]!]));
    assertError(res, 403);
    assert.deepEqual((await usersOf(lock.id)).map((u) => u.userId).sort(), [admin.userId, member.userId].sort());
    const last = (await auditEntriesOf(t, lock.id)).at(-1)!;
    assert.deepEqual([last.type, last.rejected, last.actor_user_id], ['LOCK_SHARED', 1, member.userId]);
  });

  it('holds the share of a user whose email is not verified, as ADD_USER does', async () => {
    const lock = await claimLock(t, admin);
    const unverified = await createUser(t.api);
    assert.equal((await send(admin, lock.id, batch([invitees[8]!, unverified]))).status, 200);
    const pending = new Map(((await t.api.get(`/device/${lock.id}/users`, { token: admin.authToken })).body as Array<{ userId: string; pending: boolean }>).map((u) => [u.userId, u.pending]));
    assert.deepEqual([pending.get(invitees[8]!.userId), pending.get(unverified.userId)], [false, true]);
  });

  it('shows capabilities on every lock shape the SDK decodes', async () => {
    const siteId = (await createSite(t)).id;
    const lock = await claimLock(t, admin, { siteId });
    await t.api.put(`/device/${lock.id}`, { token: admin.authToken, body: { favourite: true } });
    const shapes: Array<[string, number | undefined]> = [
      [`/device/${lock.id}`, undefined], [`/device/${lock.id}`, 3], ['/device', undefined], ['/device', 3],
      [`/site/${siteId}/device`, undefined], ['/device/favourite', undefined],
    ];
    for (const [path, version] of shapes) {
      const res = await sdkRequest(t.api, 'GET', path, { token: admin.authToken, ...(version ? { version } : {}) });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      const locks = Array.isArray(res.body) ? res.body : [res.body];
      const mine = locks.find((l: { id: string }) => l.id === lock.id);
      assert.ok(mine, path);
      assertMatchesModel(mine, LockModel, `GET ${path} v${version ?? 1}`);
      assert.deepEqual(mine.settings.capabilities, EVERY_CAPABILITY, path);
    }
  });

  it('does what it advertises: CONFIGURABLE_UNLOCK_DURATION and OPEN_HOURS by the SDK\'s MUTATE_SETTING, carried to the lock', async () => {
    const lock = await claimLock(t, admin);
    const read = async () => (await sdkRequest(t.api, 'GET', `/device/${lock.id}`, { token: admin.authToken, version: 3 })).body.settings;
    const config = async () => (await lockConfig(t.service.ctx.db.kysely, lock.id))!;
    // updateSecureSettingUnlockDurationRequest: unlockBetween null (the docs: null removes open hours; there are none yet).
    const duration = await send(admin, lock.id, '{"type":"MUTATE_SETTING","unlockDuration":9,"unlockBetween":null}');
    assert.equal(duration.status, 200, duration.text);
    assert.equal((await read()).unlockTime, 9);
    assert.equal((await config()).unlockDuration, 9);

    // updateSecureSettingUnlockBetweenRequest: unlockDuration null (unchanged), the window with exceptions null.
    const hours = await send(admin, lock.id, '{"type":"MUTATE_SETTING","unlockDuration":null,"unlockBetween":{"start":"08:00","end":"18:00","timezone":"Europe/London","days":["MONDAY","FRIDAY"],"exceptions":null}}');
    assert.equal(hours.status, 200, hours.text);
    const window = { start: '08:00', end: '18:00', timezone: 'Europe/London', days: ['MONDAY', 'FRIDAY'], exceptions: [] };
    assert.deepEqual((await read()).unlockBetweenWindow, window);
    assert.deepEqual((await config()).unlockBetween, window);
    assert.equal((await config()).unlockDuration, 9);
  });
});
