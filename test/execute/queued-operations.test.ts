import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../accounts/support.js';
import { createTestClock } from '../helpers/clock.js';
import { auditEntriesOf, claimLock, createVerifiedUser, shareLock, type ClaimedLock } from '../helpers/locks.js';
import { AuditModel, assertMatchesModel } from '../helpers/sdk-models.js';
import { sdkExecute, sdkOperationToken, sdkRequest, sdkShareJson } from '../helpers/sdk-wire.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { connectTestLock, type TestLock } from '../helpers/test-lock.js';
import { eventually } from '../helpers/wait.js';
import { certify, type Signer } from './support.js';

/**
 * Issue 28 point 4: a signed operation whose exp is more than 60 s away is answered 202 and queued
 * for its lock ("a 202 is returned to indicate the request has been queued for the device"),
 * carried out in order when the lock comes online if still valid, each outcome audited, its status
 * readable at the Location of the 202. Sent as the official SDK sends it.
 */
describe('execute: operations queued for the lock (expiry more than 60 s away)', () => {
  const clock = createTestClock();
  let t: TestService;
  let admin: Signer;
  const locks: TestLock[] = [];
  const UNLOCK = '{"type":"MUTATE_LOCK","locked":false,"duration":null}';
  const SDK_AGENT = 'KMP SDK JVM - v1.2.3';

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never', LOCK_REPLY_TIMEOUT_MS: '2000' }, { clock });
    admin = await certify(t, await createVerifiedUser(t));
  });
  after(async () => {
    for (const lock of locks) await lock.close();
    await t?.close();
  });

  const send = (signer: Signer, lockId: string, operation: string, lifetime: number, jti?: string) =>
    sdkExecute(t.api, signer.authToken, lockId, sdkOperationToken(signer, lockId, operation, { now: clock.now(), exp: clock.now() + lifetime, ...(jti ? { jti } : {}) }), { userAgent: SDK_AGENT });
  const status = async (signer: Signer, location: string) => t.api.get(location, { token: signer.authToken });
  /** Waits until the queued operation is settled (its outcome kept), and checks the outcome. */
  const untilStatus = async (location: string, wanted: string) => {
    const settled = await eventually(async () => {
      const res = await status(admin, location);
      return res.body.finished !== null ? res.body : undefined;
    }, `the queued operation ${wanted}`);
    assert.equal(settled.status, wanted, JSON.stringify(settled));
    return settled;
  };
  const connect = async (lock: ClaimedLock): Promise<TestLock> => {
    const device = await connectTestLock({ url: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, id: lock.id, secret: lock.secret });
    locks.push(device);
    return device;
  };
  const lockLog = async (lockId: string) => {
    const res = await sdkRequest(t.api, 'GET', `/device/${lockId}/log?start=0&end=${clock.now() + 3600}`, { token: admin.authToken, version: 2 });
    assert.equal(res.status, 200, res.text);
    for (const entry of res.body) assertMatchesModel(entry, AuditModel, 'lock audit v2');
    return res.body as any[];
  };

  it('answers 202 with the status at Location, and opens the door in order once the lock comes online', async () => {
    const lock = await claimLock(t, admin);
    const first = await send(admin, lock.id, UNLOCK, 300);
    assert.equal(first.status, 202, first.text);
    const location = first.headers.get('location')!;
    assert.equal(location, `/device/${lock.id}/operations/${first.body.id}`);
    assert.deepEqual({ ...first.body, id: undefined }, {
      id: undefined, lockId: lock.id, operation: 'MUTATE_LOCK', status: 'QUEUED', created: clock.now(), expires: clock.now() + 300, finished: null, error: null,
    });
    assert.deepEqual((await status(admin, location)).body, first.body);
    const second = await send(admin, lock.id, '{"type":"MUTATE_LOCK","locked":true,"duration":null}', 600);
    assert.equal(second.status, 202, second.text);

    const device = await connect(lock);
    const done = await untilStatus(second.headers.get('location')!, 'DELIVERED');
    assert.equal(done.finished, clock.now());
    assert.equal((await status(admin, location)).body.status, 'DELIVERED');
    assert.deepEqual(device.commands.map((c) => (c.operation as { locked: boolean }).locked), [false, true], 'delivered once each, in the order sent');
    const log = await lockLog(lock.id);
    const unlock = log.find((e) => e.type === 'DOOR_UNLOCK');
    assert.ok(unlock, JSON.stringify(log));
    assert.equal(unlock.rejected, false);
    assert.equal(unlock.issuer.userId, admin.userId);
    assert.deepEqual(unlock.userAgent, { type: 'KMP_SDK_JVM', version: '1.2.3' }, 'the client of the request that queued it');
  });

  it('drops an operation that expires before the lock comes online, and audits it', async () => {
    const lock = await claimLock(t, admin);
    const queued = await send(admin, lock.id, UNLOCK, 120);
    assert.equal(queued.status, 202, queued.text);
    clock.advance(121);
    assert.equal((await status(admin, queued.headers.get('location')!)).body.status, 'EXPIRED', 'past its exp it will never be delivered');
    const device = await connect(lock);
    const dropped = await untilStatus(queued.headers.get('location')!, 'EXPIRED');
    assert.equal(dropped.error.error, 'token_expired');
    assert.equal(device.commands.length, 0, 'never sent to the lock');
    const refused = (await lockLog(lock.id)).filter((e) => e.rejected);
    assert.equal(refused.length, 1);
    assert.equal(refused[0].type, 'DOOR_UNLOCK');
    assert.match(refused[0].rejectionReason ?? refused[0].message ?? '', /expired before the lock came online/);
  });

  it('keeps today\'s behaviour within 60 s: 503 while the lock is offline, nothing queued', async () => {
    const lock = await claimLock(t, admin);
    const res = await send(admin, lock.id, UNLOCK, 60);
    assertError(res, 503);
    const device = await connect(lock);
    await eventually(() => t.service.ctx.link.isOnline(lock.id), 'lock online');
    assert.equal((await send(admin, lock.id, UNLOCK, 60)).status, 200);
    assert.equal(device.commands.length, 1);
  });

  it('queues a share: the invitee is a member once the lock has it; the token is consumed when queued', async () => {
    const lock = await claimLock(t, admin);
    const invitee = await createVerifiedUser(t);
    const jti = crypto.randomUUID();
    const share = `{"type":"ADD_USER",${sdkShareJson({ user: invitee.userId, publicKey: invitee.key.publicKeyBase64, role: 'USER' }).slice(1)}`;
    const queued = await send(admin, lock.id, share, 3600, jti);
    assert.equal(queued.status, 202, queued.text);
    assert.equal(queued.body.operation, 'ADD_USER');
    assertError(await send(admin, lock.id, share, 3600, jti), 409);
    const users = async () => ((await t.api.get(`/device/${lock.id}/users`, { token: admin.authToken })).body as Array<{ userId: string }>).map((u) => u.userId);
    assert.ok(!(await users()).includes(invitee.userId), 'not before the lock has it');
    await connect(lock);
    await untilStatus(queued.headers.get('location')!, 'DELIVERED');
    assert.ok((await users()).includes(invitee.userId));
    assert.ok((await lockLog(lock.id)).some((e) => e.type === 'LOCK_SHARED' && !e.rejected && e.subject?.userId === invitee.userId));
  });

  it('audits a queued operation refused on delivery; its status is its sender\'s and the lock\'s admins\' only', async () => {
    const lock = await claimLock(t, admin);
    const member = await certify(t, await createVerifiedUser(t));
    const stranger = await certify(t, await createVerifiedUser(t));
    await shareLock(t, lock.id, admin, member.userId);
    // A USER may not change settings: queued all the same (only its token is checked now), refused when delivered.
    const queued = await send(member, lock.id, '{"type":"MUTATE_SETTING","unlockDuration":9,"unlockBetween":null}', 600);
    assert.equal(queued.status, 202, queued.text);
    const location = queued.headers.get('location')!;
    assert.equal((await status(member, location)).status, 200);
    assert.equal((await status(admin, location)).status, 200);
    assertError(await status(stranger, location), 404);
    assertError(await status(admin, `/device/${lock.id}/operations/${crypto.randomUUID()}`), 404);
    const other = await claimLock(t, admin);
    assertError(await status(admin, `/device/${other.id}/operations/${queued.body.id}`), 404);

    await connect(lock);
    const refused = await untilStatus(location, 'REFUSED');
    assert.equal(refused.error.error, 'forbidden');
    const [entry] = (await lockLog(lock.id)).filter((e) => e.rejected);
    assert.equal(entry?.type, 'SETTING_CHANGED');
    assert.equal(entry.issuer.userId, member.userId);
  });
});

describe('execute: the queue sweep drops what expired for a lock that never came back', () => {
  const clock = createTestClock();
  let t: TestService;
  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never', OPERATION_QUEUE_SWEEP_SECONDS: '1' }, { clock });
  });
  after(async () => t?.close());

  it('settles it EXPIRED and audits it, the lock still offline', async () => {
    const admin = await certify(t, await createVerifiedUser(t));
    const lock = await claimLock(t, admin);
    const token = sdkOperationToken(admin, lock.id, '{"type":"MUTATE_LOCK","locked":false,"duration":null}', { now: clock.now(), exp: clock.now() + 90 });
    const queued = await sdkExecute(t.api, admin.authToken, lock.id, token);
    assert.equal(queued.status, 202, queued.text);
    clock.advance(91);
    const settled = await eventually(async () => {
      const res = await t.api.get(queued.headers.get('location')!, { token: admin.authToken });
      return res.body.finished !== null ? res.body : undefined;
    }, 'swept');
    assert.equal(settled.status, 'EXPIRED');
    const entries = await auditEntriesOf(t, lock.id);
    assert.ok(entries.some((e) => e.type === 'DOOR_UNLOCK' && e.rejected === 1 && /expired before the lock came online/.test(e.message)), JSON.stringify(entries));
  });
});
