import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { sharedWindowKey } from '../../src/limits/batched-rate-limit.js';
import { createLegacyUser, createUser, type TestUser } from '../helpers/factories.js';
import type { Api } from '../helpers/http.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { createTestClock } from '../helpers/clock.js';
import { startInstanceBeside, startTestService, TEST_REDIS_URL, type TestService } from '../helpers/service.js';
import { eventually, timePassed, within } from '../helpers/wait.js';
import { openStream, type SseStream } from '../events/sse-client.js';

const sessionIdOf = (token: string): string => (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid;

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
    const outcome = await within(stream.ended.then(() => 'ended'), 5000, 'still open');
    assert.equal(outcome, 'ended');
  });

  it('a logout on one instance is refused on the other 100 ms later at most, though the other held the session in memory', async () => {
    // Issue 17 §1 promises 100 ms. Not a timing assertion: the other instance is asked once, no
    // sooner than 100 ms after the logout answered, and must refuse that first request; without
    // the push over the bus the held session would answer 200 until it expires. (The logout
    // answers once Redis has taken the announcement: test/http/redis-outage.test.ts.)
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const user = await createLegacyUser(first.api); // v1: a v3 account's first GET /account makes its legacy key, a change that drops what is held
      assert.equal((await second.api.get('/account', { token: user.authToken })).status, 200);
      // Held: the second instance answers this session without the database from here on.
      assert.ok(second.service.ctx.liveSessions?.find(user.userId, sessionIdOf(user.authToken), Date.now() / 1000));
      assert.equal((await first.api.post('/auth/token/destroy', { token: user.authToken })).status, 204);
      await timePassed(100);
      assert.equal(second.service.ctx.liveSessions?.find(user.userId, sessionIdOf(user.authToken), Date.now() / 1000), undefined, 'still held on the other instance');
      assert.equal((await second.api.get('/account', { token: user.authToken })).status, 401);
    }
  });

  it('requests are counted against one limit across both instances', async () => {
    const user = await createUser(first.api);
    // Windows are aligned to the clock: the two instances share one that stands still, so their
    // window cannot end during the test.
    const clock = createTestClock();
    const durationMs = 3_600_000;
    const limits = { ...first.config.limits, requestsPerCaller: { points: 6, durationSeconds: durationMs / 1000 } };
    const limited = await startInstanceBeside({ ...first, config: { ...first.config, limits }, clock });
    const alsoLimited = await startInstanceBeside({ ...first, config: { ...first.config, limits }, clock });
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const nowMs = clock.now() * 1000;
      const start = nowMs - (nowMs % durationMs);
      const sharedCount = async () => Number((await redis.get(sharedWindowKey('caller', user.userId, start))) ?? 0);
      const statuses: number[] = [];
      for (let i = 0; i < 10; i += 1) {
        const status = (await (i % 2 === 0 ? limited : alsoLimited).api.get('/account', { token: user.authToken })).status;
        statuses.push(status);
        // Past a batch: Redis holds every admitted request before the other instance is asked
        // (a fixed sleep was not enough on a loaded CI machine).
        const admitted = statuses.filter((s) => s === 200).length;
        await eventually(async () => (await sharedCount()) >= admitted, 'Redis holding every admitted request', 5000, 5);
      }
      // Counted apart, each instance would admit six (all ten). Batches let an instance admit one
      // the other counted since its last flush: at most one over, then refused on both.
      assert.deepEqual(statuses.slice(0, 6), [200, 200, 200, 200, 200, 200]);
      assert.ok(statuses.slice(6, 7).every((status) => status === 200 || status === 429), String(statuses));
      assert.deepEqual(statuses.slice(7), [429, 429, 429]);
    } finally {
      redis.disconnect();
      await limited.close();
      await alsoLimited.close();
    }
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
