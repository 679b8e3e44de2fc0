import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import { claimLock } from '../helpers/locks.js';
import { redisServerInstalled, startPrivateRedis, type PrivateRedis } from '../helpers/redis-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { eventually as poll } from '../helpers/eventually.js';

const eventually = <T>(check: () => Promise<T | undefined>, what: string, withinMs = 15_000) => poll(check, what, withinMs);


/**
 * A scaled-out instance while its Redis (a private one, stopped and started again by the test)
 * is down: what needs no shared state answers, what does answers 503 with Retry-After (never a
 * 500), and all comes back within seconds of Redis, with no restart (issue 17 §2).
 */
describe('an instance while Redis is down', { skip: !redisServerInstalled && 'redis-server not installed' }, () => {
  let redis: PrivateRedis;
  let t: TestService;
  before(async () => {
    redis = await startPrivateRedis();
    t = await startTestService({ REDIS_URL: redis.url, RATE_LOGIN_FAILURES_PER_ACCOUNT: '2' });
  });
  after(async () => {
    await t?.close();
    await redis?.stop();
  });

  it('keeps answering, checks sessions against the database, refuses event streams with 503, and recovers', async () => {
    const user = await createUser(t.api);
    const other = await createUser(t.api);
    const lock = await claimLock(t, user);
    assert.equal((await t.api.get('/account', { token: user.authToken })).status, 200);
    assert.equal((await t.api.get('/account', { token: other.authToken })).status, 200);
    assert.equal((await fetch(`${t.service.url}/readyz`)).status, 200);

    await redis.stop();
    const down = await eventually(async () => {
      const res = await fetch(`${t.service.url}/readyz`);
      return res.status === 503 ? ((await res.json()) as unknown) : undefined;
    }, 'readyz 503');
    assert.deepEqual(down, { status: 'unavailable', checks: { database: 'ok', broker: 'ok', redis: 'failed' } });

    assert.equal((await fetch(`${t.service.url}/health`)).status, 200);
    assert.equal((await fetch(`${t.service.url}/time`)).status, 200);
    assert.equal((await fetch(`${t.service.url}/healthz`)).status, 200);
    assert.equal((await t.api.get('/account', { token: user.authToken })).status, 200);
    assert.equal((await t.api.get(`/device/${lock.id}`, { token: user.authToken })).status, 200);

    // A logout while the bus is down still ends the session at once: sessions come from the database.
    assert.equal((await t.api.post('/auth/token/destroy', { token: other.authToken })).status, 204);
    assert.equal((await t.api.get('/account', { token: other.authToken })).status, 401);

    // Failed logins are still limited, by this instance alone.
    const wrong = () => t.api.post('/auth/token', { version: 2, body: { email: user.email, password: 'not the password' } });
    assert.equal((await wrong()).status, 401);
    assert.equal((await wrong()).status, 401);
    const limited = await wrong();
    assert.equal(limited.status, 429, limited.text);

    const stream = await fetch(`${t.service.url}/device/events?device=${lock.id}`, { headers: { authorization: `Bearer ${user.authToken}`, accept: 'text/event-stream' } });
    assert.equal(stream.status, 503);
    assert.ok(Number(stream.headers.get('retry-after')) >= 1);
    assert.equal(((await stream.json()) as { error: string }).error, 'shared_state_unavailable');

    await redis.start();
    await eventually(async () => ((await fetch(`${t.service.url}/readyz`)).status === 200 ? true : undefined), 'readyz 200 again');
    const back = await fetch(`${t.service.url}/device/events?device=${lock.id}`, { headers: { authorization: `Bearer ${user.authToken}`, accept: 'text/event-stream' } });
    assert.equal(back.status, 200);
    await back.body?.cancel();
    assert.equal((await t.api.get('/account', { token: user.authToken })).status, 200);
    assert.equal((await t.api.get('/account', { token: other.authToken })).status, 401);
  });
});
