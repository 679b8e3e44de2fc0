import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, type TestUser } from '../helpers/factories.js';
import type { Api } from '../helpers/http.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { startInstanceBeside, startTestService, TEST_REDIS_URL, type TestService } from '../helpers/service.js';
import { openStream, type SseStream } from '../events/sse-client.js';

/**
 * Two instances of the service on one database and one Redis, as a scaled-out deployment runs
 * them: what one does, the other sees at once.
 */
describe('two instances sharing the database and Redis', () => {
  let first: TestService;
  let second: { api: Api; service: TestService['service']; close(): Promise<void> };
  let owner: TestUser;
  const streams: SseStream[] = [];
  before(async () => {
    first = await startTestService({ REDIS_URL: TEST_REDIS_URL, RATE_LOGIN_FAILURES_PER_ACCOUNT: '3', SSE_HEARTBEAT_MS: '200' });
    second = await startInstanceBeside(first);
    owner = await createUser(first.api);
  });
  after(async () => {
    for (const stream of streams) stream.close();
    await second?.close();
    await first?.close();
  });

  it('an event stream on one instance receives what the other records', async () => {
    const lock = await claimLock(first, owner);
    const stream = await openStream(second.service.url, `/device/events?device=${lock.id}`, { token: owner.authToken });
    streams.push(stream);
    const guest = await createUser(first.api);
    await shareLock(first, lock.id, owner, guest.userId); // recorded by the first instance
    const [event] = await stream.waitFor(1);
    assert.equal(event!.event, 'LOCK_SHARED');
    assert.equal((event!.data as { deviceId: string }).deviceId, lock.id);
  });

  it('a stream on one instance ends when its session is logged out through the other (the bus carries it)', async () => {
    const user = await createUser(first.api);
    const lock = await claimLock(first, user);
    const stream = await openStream(second.service.url, `/device/events?device=${lock.id}`, { token: user.authToken });
    streams.push(stream);
    assert.equal(stream.status, 200);
    assert.equal((await first.api.post('/auth/token/destroy', { token: user.authToken })).status, 204);
    const outcome = await Promise.race([stream.ended.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('still open'), 5000))]);
    assert.equal(outcome, 'ended');
  });

  it('failed logins count against the account on both instances together', async () => {
    const user = await createUser(first.api);
    const wrong = (api: Api) => api.post('/auth/token', { version: 2, body: { email: user.email, password: 'not the password' } });
    assert.equal((await wrong(first.api)).status, 401);
    assert.equal((await wrong(second.api)).status, 401);
    assert.equal((await wrong(first.api)).status, 401);
    const limited = await wrong(second.api);
    assert.equal(limited.status, 429, limited.text);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  });
});
