import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordAuditNow } from '../../src/audit/record.js';
import { thirdPartyToken, createThirdParty } from '../applications/helpers.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { within } from '../helpers/wait.js';
import { openStream, type SseStream } from './sse-client.js';

/** Issue 15 §3 and §6: a stream ends with the access or the session it was opened on; a USER does not see others' addresses. */
describe('GET /device/events under attack: streams end when access ends, whatever ended it', () => {
  let t: TestService;
  let owner: TestUser;
  const streams: SseStream[] = [];
  const open = async (lockId: string, token: string) => {
    const stream = await openStream(t.service.url, `/device/events?device=${lockId}`, { token });
    assert.equal(stream.status, 200);
    streams.push(stream);
    return stream;
  };
  const ends = (stream: SseStream) => within(stream.ended.then(() => 'ended'), 5000, 'still open');
  /** The user a third-party token signs in (made on its first use). */
  const thirdPartyUser = async (token: string, applicationId: string) => {
    assert.equal((await t.api.get('/account', { token })).status, 200);
    const row = await t.service.ctx.db.kysely.selectFrom('users').select('id').where('namespace', '=', applicationId).executeTakeFirstOrThrow();
    return row.id;
  };
  const login = async (user: TestUser) => (await t.api.post('/auth/token', { body: { email: user.email, password: user.password } })).body.authToken as string;

  before(async () => {
    t = await startTestService({ SSE_HEARTBEAT_MS: '50' });
    owner = await createUser(t.api);
  });
  after(async () => {
    await t.close();
    for (const stream of streams) stream.close();
  });

  it('ends when one operation demotes an ADMIN and ends their window (USER_DEMOTED)', async () => {
    const lock = await claimLock(t, owner);
    const deputy = await createUser(t.api);
    await shareLock(t, lock.id, owner, deputy.userId, { role: 'ADMIN' });
    const stream = await open(lock.id, deputy.authToken);
    const past = Math.floor(Date.now() / 1000) - 60;
    await shareLock(t, lock.id, owner, deputy.userId, { role: 'USER', start: past - 60, end: past });
    assert.equal(await ends(stream), 'ended');
  });

  it('ends when its session is logged out from another device', async () => {
    const lock = await claimLock(t, owner);
    const stream = await open(lock.id, owner.authToken);
    // The same account, logged in elsewhere, ends that session: here, the stream's own token.
    const res = await t.api.post('/auth/token/destroy', { token: owner.authToken });
    assert.equal(res.status, 204);
    assert.equal(await ends(stream), 'ended');
    owner = await createUser(t.api); // a fresh owner for the tests after this one
  });

  it('ends when the password is changed from another session, and keeps the changing session’s stream', async () => {
    const user = await createUser(t.api);
    const lock = await claimLock(t, user);
    const other = await login(user);
    const stolen = await open(lock.id, user.authToken);
    const own = await open(lock.id, other);
    const res = await t.api.post('/account/password', { token: other, body: { oldPassword: user.password, newPassword: 'another horse battery' } });
    assert.equal(res.status, 204, res.text);
    assert.equal(await ends(stolen), 'ended');
    await recordAuditNow(t.service.ctx, { lockId: lock.id, type: 'DOOR_OPEN', actorUserId: null });
    await own.waitFor(1);
  });

  it('ends when the application that issued its third-party token is deleted', async () => {
    const party = await createThirdParty(t.api);
    const token = await thirdPartyToken(party, { claims: { email: `tp-${Date.now()}@example.com` } });
    const lock = await claimLock(t, owner);
    await shareLock(t, lock.id, owner, await thirdPartyUser(token, party.applicationId));
    const stream = await open(lock.id, token);
    const res = await t.api.delete(`/platform/application/${party.applicationId}`, { token: party.owner.authToken });
    assert.equal(res.status, 204, res.text);
    assert.equal(await ends(stream), 'ended');
  });

  it('ends when the signing key of its third-party token is removed', async () => {
    const party = await createThirdParty(t.api);
    const token = await thirdPartyToken(party);
    const lock = await claimLock(t, owner);
    await shareLock(t, lock.id, owner, await thirdPartyUser(token, party.applicationId));
    const stream = await open(lock.id, token);
    const res = await t.api.delete(`/platform/application/${party.applicationId}/key/${party.kid}`, { token: party.owner.authToken });
    assert.ok([200, 204].includes(res.status), res.text);
    assert.equal(await ends(stream), 'ended');
  });

  it("shows a USER no other member's email address; an ADMIN sees them", async () => {
    const lock = await claimLock(t, owner);
    const guest = await createUser(t.api);
    await shareLock(t, lock.id, owner, guest.userId);
    const guestStream = await open(lock.id, guest.authToken);
    const adminStream = await open(lock.id, owner.authToken);
    await recordAuditNow(t.service.ctx, { lockId: lock.id, type: 'DOOR_UNLOCK', actorUserId: owner.userId });
    await recordAuditNow(t.service.ctx, { lockId: lock.id, type: 'DOOR_UNLOCK', actorUserId: guest.userId });
    const [byOwner, byGuest] = await guestStream.waitFor(2);
    assert.equal(byOwner!.data.user, owner.userId);
    assert.ok(!JSON.stringify(byOwner!.data).includes(owner.email), JSON.stringify(byOwner!.data));
    assert.equal(byGuest!.data.email, guest.email, 'one’s own address stays');
    const [seenByAdmin] = await adminStream.waitFor(1);
    assert.equal(seenByAdmin!.data.email, owner.email);
  });
});
