import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SimulatedLock } from '../../src/simulator/simulated-lock.js';
import { createTestClock, type TestClock } from '../helpers/clock.js';
import { auditEntriesOf, claimLock, createVerifiedUser, shareLock, type ClaimedLock } from '../helpers/locks.js';
import { assertMatchesModel, LockModel } from '../helpers/sdk-models.js';
import { sdkExecute, sdkLocalUnlock, sdkLockOperation, sdkOperationToken, sdkRequest } from '../helpers/sdk-wire.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually, lockReportsRecorded } from '../helpers/wait.js';
import { certify, type Signer } from '../execute/support.js';

/**
 * Unlock on the LAN (issue 28 point 3, device protocol 1.3) with the simulator: the official SDK's
 * LocalUnlockClient request to the lock's directAccessEndpoint, checked at the edge as a command
 * of the service, reported and audited once the lock reaches the service again; the keypad and a
 * hand on the lock reported and audited too (issue 26 point 4).
 */

type Entry = Awaited<ReturnType<typeof auditEntriesOf>>[number];
const detailsOf = (entry: Entry) => (entry.details === null ? {} : (JSON.parse(entry.details) as Record<string, unknown>));

describe('unlock on the LAN (simulator)', () => {
  let t: TestService;
  let clock: TestClock;
  let owner: Signer;
  let member: Signer;
  let lock: ClaimedLock;
  let sim: SimulatedLock;

  const lockJson = async (who: Signer) => (await sdkRequest(t.api, 'GET', `/device/${lock.id}`, { token: who.authToken })).body;
  const configApplied = async () => {
    const wanted = (await t.service.ctx.db.kysely.selectFrom('locks').select('config_version').where('id', '=', lock.id).executeTakeFirstOrThrow()).config_version;
    await eventually(() => sim.configVersion === wanted, 'the config applied on the lock');
  };

  before(async () => {
    clock = createTestClock();
    t = await startTestService({ CERT_CHECK: 'never', LOCK_REPLY_TIMEOUT_MS: '3000' }, { clock });
    owner = await certify(t, await createVerifiedUser(t));
    member = await certify(t, await createVerifiedUser(t));
    lock = await claimLock(t, owner);
    await shareLock(t, lock.id, owner, member.userId, { role: 'ADMIN' });
    sim = new SimulatedLock({
      id: lock.id, secret: lock.secret, mqttUrl: `mqtt://127.0.0.1:${t.service.ctx.broker!.port}`, replyDelayMs: 0,
      trustedRoot: t.service.ctx.pki.rootCertificate, now: clock.now, log: () => {}, lan: { port: 0, host: '127.0.0.1' },
    });
    await sim.connect();
    await eventually(() => t.service.ctx.link.isOnline(lock.id), 'the lock online');
    await configApplied();
  });
  after(async () => {
    await sim?.close();
    await t?.close();
  });

  it("shows the lock's LAN address only once its owner allows it, in every lock shape the SDK reads", async () => {
    await eventually(async () => ((await t.service.ctx.db.kysely.selectFrom('locks').select('direct_access_endpoints').where('id', '=', lock.id).executeTakeFirstOrThrow()).direct_access_endpoints !== null ? true : undefined), 'the announced address stored');
    assert.deepEqual((await lockJson(member)).settings.directAccessEndpoints, []);
    // An ADMIN who is not the owner may not; nobody writes the addresses themselves.
    assert.equal((await t.api.put(`/device/${lock.id}`, { token: member.authToken, body: { settings: { directAccess: true } } })).status, 403);
    assert.equal((await t.api.put(`/device/${lock.id}`, { token: owner.authToken, body: { settings: { directAccessEndpoints: ['http://203.0.113.9/device/execute'] } } })).status, 400);
    const allowed = await t.api.put(`/device/${lock.id}`, { token: owner.authToken, body: { settings: { directAccess: true } } });
    assert.ok(allowed.status < 300, allowed.text);

    const single = await lockJson(member);
    assertMatchesModel(single, LockModel, 'GET /device/{id}');
    assert.deepEqual(single.settings.directAccessEndpoints, [sim.lanUrl]);
    assert.equal(single.settings.directAccess, true);
    const list = (await sdkRequest(t.api, 'GET', '/device', { token: member.authToken })).body as Array<{ id: string; settings: { directAccessEndpoints: string[] } }>;
    const listed = list.find((entry) => entry.id === lock.id);
    assertMatchesModel(listed, LockModel, 'GET /device');
    assert.deepEqual(listed?.settings.directAccessEndpoints, [sim.lanUrl]);
  });

  it('opens the door on the LAN while the link is cut, audits it with the time it happened once the link is back, and refuses a replay at either path', async () => {
    const lanUrl = sim.lanUrl!;
    await sim.powerCut();
    await eventually(() => !t.service.ctx.link.isOnline(lock.id), 'the lock offline to the service');

    const happened = clock.now();
    const token = sdkOperationToken(member, lock.id, sdkLockOperation(false), { now: happened });
    // The service cannot reach the lock; the lock, on its LAN, opens.
    assert.equal((await sdkExecute(t.api, member.authToken, lock.id, token)).status, 503);
    const opened = await sdkLocalUnlock(lanUrl, token);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal(sim.state.locked, false);
    assert.equal(sim.unsentReports, 1);
    const replayedOnLan = await sdkLocalUnlock(lanUrl, token);
    assert.equal(replayedOnLan.status, 409);
    assert.equal(replayedOnLan.body.error, 'jti_reused');

    clock.advance(5);
    await sim.connect();
    const entry = await eventually(async () => (await auditEntriesOf(t, lock.id)).find((e) => detailsOf(e).source === 'lan'), 'the LAN unlock audited');
    assert.equal(entry.type, 'DOOR_UNLOCK');
    assert.equal(entry.actor_user_id, member.userId);
    assert.equal(entry.timestamp, happened);
    assert.equal(detailsOf(entry).happenedAt, happened);
    await eventually(() => sim.unsentReports === 0, 'the report taken by the broker');

    // The same request through the service: refused, the lock online again.
    const replayedAtService = await sdkExecute(t.api, member.authToken, lock.id, token);
    assert.equal(replayedAtService.status, 409, replayedAtService.text);
    // Through the service first, then on the LAN: refused on the LAN (one replay memory on the lock).
    const viaService = sdkOperationToken(member, lock.id, sdkLockOperation(false), { now: clock.now() });
    assert.equal((await sdkExecute(t.api, member.authToken, lock.id, viaService)).status, 200);
    assert.equal((await sdkLocalUnlock(lanUrl, viaService)).status, 409);
    const lanEntries = (await auditEntriesOf(t, lock.id)).filter((e) => detailsOf(e).source === 'lan');
    assert.equal(lanEntries.length, 1);
  });

  it('refuses on the LAN what the service would: a token for another lock, a stranger, a bad signature', async () => {
    const lanUrl = sim.lanUrl!;
    const stranger = await certify(t, await createVerifiedUser(t));
    const notEnrolled = await sdkLocalUnlock(lanUrl, sdkOperationToken(stranger, lock.id, sdkLockOperation(false), { now: clock.now() }));
    assert.equal(notEnrolled.status, 403);
    const otherLock = await sdkLocalUnlock(lanUrl, sdkOperationToken(member, '00000000-0000-4000-8000-000000000000', sdkLockOperation(false), { now: clock.now() }));
    assert.equal(otherLock.status, 404);
    const good = sdkOperationToken(member, lock.id, sdkLockOperation(false), { now: clock.now() });
    const forged = `${good.slice(0, good.lastIndexOf('.') + 1)}${Buffer.alloc(64, 1).toString('base64')}`;
    assert.equal((await sdkLocalUnlock(lanUrl, forged)).status, 401);
    assert.equal((await sdkLocalUnlock(lanUrl, 'not a token')).status, 400);
  });

  it('reports the keypad (with its slot) and a hand on the lock; each is audited once, without a user', async () => {
    await sim.connect();
    await eventually(() => t.service.ctx.link.isOnline(lock.id), 'the lock online');
    // Left open by the unlocks before (the test clock stands still: no relock by itself).
    await eventually(async () => ((await lockJson(owner)).state.locked === false ? true : undefined), 'unlocked, as the lock reports it');
    await lockReportsRecorded(t);
    const before = (await auditEntriesOf(t, lock.id)).length;
    const since = async () => (await auditEntriesOf(t, lock.id)).slice(before);
    assert.equal(sim.operate('manual', true), true);
    await eventually(async () => ((await since()).some((e) => detailsOf(e).source === 'manual') ? true : undefined), 'the manual lock audited');
    assert.equal(sim.operate('keypad', false, 3), true);
    const keypad = await eventually(async () => (await since()).find((e) => detailsOf(e).source === 'keypad'), 'the keypad unlock audited');
    assert.equal(keypad.type, 'DOOR_UNLOCK');
    assert.equal(keypad.actor_user_id, null);
    assert.equal(detailsOf(keypad).slot, 3);
    assert.equal(sim.operate('manual', true), true);
    await eventually(async () => ((await since()).filter((e) => detailsOf(e).source === 'manual').length === 2 ? true : undefined), 'the second manual lock audited');
    await eventually(async () => ((await lockJson(owner)).state.locked === true ? true : undefined), 'locked, as the lock reports it');
    await lockReportsRecorded(t);
    // Each move once: the state reports that followed them are no second entry without a source.
    const moves = (await since()).filter((e) => e.type === 'DOOR_UNLOCK' || e.type === 'DOOR_LOCK');
    assert.deepEqual(moves.map((e) => [e.type, e.actor_user_id, detailsOf(e).source ?? null]), [['DOOR_LOCK', null, 'manual'], ['DOOR_UNLOCK', null, 'keypad'], ['DOOR_LOCK', null, 'manual']]);
  });
});
