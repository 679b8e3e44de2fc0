import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordAuditNow } from '../../src/audit/record.js';
import { createUser, type TestUser } from '../helpers/factories.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { openStream, type SseStream } from './sse-client.js';

/** Issue 15 §5 and §6 in the live stream: entries show who acted as recorded, and a USER still sees no one else's address. */
describe('GET /device/events shows the names an entry was recorded with', () => {
  let t: TestService;
  let owner: TestUser;
  const streams: SseStream[] = [];
  const open = async (lockId: string, token: string, lastEventId?: string) => {
    const stream = await openStream(t.service.url, `/device/events?device=${lockId}`, { token, ...(lastEventId === undefined ? {} : { lastEventId }) });
    assert.equal(stream.status, 200);
    streams.push(stream);
    return stream;
  };
  const rename = async (user: TestUser, displayName: string) => assert.equal((await t.api.post('/account', { token: user.authToken, body: { displayName } })).status, 204);

  before(async () => {
    t = await startTestService({ SSE_HEARTBEAT_MS: '50' });
    owner = await createUser(t.api, { displayName: 'Olive Before' });
  });
  after(async () => {
    await t.close();
    for (const stream of streams) stream.close();
  });

  it("replays and streams each entry with its recorded name, and keeps others' recorded addresses from a USER", async () => {
    const lock = await claimLock(t, owner);
    const guest = await createUser(t.api, { displayName: 'Gus' });
    await shareLock(t, lock.id, owner, guest.userId);
    const guestStream = await open(lock.id, guest.authToken);
    await recordAuditNow(t.service.ctx, { lockId: lock.id, type: 'DOOR_UNLOCK', actorUserId: owner.userId });
    await rename(owner, 'Olive After');
    await recordAuditNow(t.service.ctx, { lockId: lock.id, type: 'DOOR_UNLOCK', actorUserId: owner.userId });
    await recordAuditNow(t.service.ctx, { lockId: lock.id, type: 'DOOR_UNLOCK', actorUserId: guest.userId });

    // The ADMIN replays the whole trail: the names as they were at each entry.
    const replay = await open(lock.id, owner.authToken, '0');
    const all = await replay.waitFor(5);
    assert.deepEqual(all.map((e) => [e.event, e.data.user, e.data.email, e.data.displayName]), [
      ['OWNER_ASSIGNED', owner.userId, owner.email, 'Olive Before'],
      ['LOCK_SHARED', owner.userId, owner.email, 'Olive Before'],
      ['DOOR_UNLOCK', owner.userId, owner.email, 'Olive Before'],
      ['DOOR_UNLOCK', owner.userId, owner.email, 'Olive After'],
      ['DOOR_UNLOCK', guest.userId, guest.email, 'Gus'],
    ]);
    assert.deepEqual(all[1]!.data.subject, { userId: guest.userId, email: guest.email, displayName: 'Gus', ip: null });

    // The USER: the same names, but no address other than their own, recorded or not.
    const seen = await guestStream.waitFor(3);
    assert.deepEqual(seen.map((e) => [e.data.user, e.data.displayName]), [[owner.userId, 'Olive Before'], [owner.userId, 'Olive After'], [guest.userId, 'Gus']]);
    for (const event of seen.slice(0, 2)) {
      assert.ok(!JSON.stringify(event.data).includes(owner.email), JSON.stringify(event.data));
      assert.deepEqual(event.data.issuer, { userId: owner.userId, displayName: event.data.displayName, ip: null });
    }
    assert.equal(seen[2]!.data.email, guest.email, 'one’s own recorded address stays');
  });
});
