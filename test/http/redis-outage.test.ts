import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { after, before, describe, it } from 'node:test';
import { createLegacyUser } from '../helpers/factories.js';
import { claimLock } from '../helpers/locks.js';
import { redisServerInstalled, startPrivateRedis, type PrivateRedis } from '../helpers/redis-server.js';
import { startInstanceBeside, startTestService, type TestService } from '../helpers/service.js';
import type { Api } from '../helpers/http.js';
import { createThirdParty, thirdPartyToken } from '../applications/helpers.js';
import { eventually, timePassed } from '../helpers/wait.js';



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
    const user = await createLegacyUser(t.api);
    const other = await createLegacyUser(t.api);
    const lock = await claimLock(t, user);
    assert.equal((await t.api.get('/account', { token: user.authToken })).status, 200);
    assert.equal((await t.api.get('/account', { token: other.authToken })).status, 200);
    assert.equal((await fetch(`${t.service.url}/readyz`)).status, 200);

    await redis.stop();
    const down = await eventually(async () => {
      const res = await fetch(`${t.service.url}/readyz`);
      return res.status === 503 ? ((await res.json()) as unknown) : undefined;
    }, 'readyz 503', 15_000);
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
    await eventually(async () => ((await fetch(`${t.service.url}/readyz`)).status === 200 ? true : undefined), 'readyz 200 again', 15_000);
    const back = await fetch(`${t.service.url}/device/events?device=${lock.id}`, { headers: { authorization: `Bearer ${user.authToken}`, accept: 'text/event-stream' } });
    assert.equal(back.status, 200);
    await back.body?.cancel();
    assert.equal((await t.api.get('/account', { token: user.authToken })).status, 200);
    assert.equal((await t.api.get('/account', { token: other.authToken })).status, 401);
  });
});

/**
 * Two instances on a private Redis the test pauses, stops and starts: what one instance holds on
 * the strength of "a change would be announced" (sessions, third-party issuers' keys, CORS
 * origins) must not outlive an announcement it could not hear.
 */
describe('two instances while their Redis pauses or goes away', { skip: !redisServerInstalled && 'redis-server not installed' }, () => {
  let redis: PrivateRedis;
  let a: TestService;
  let b: Awaited<ReturnType<typeof startInstanceBeside>>;
  before(async () => {
    redis = await startPrivateRedis();
    a = await startTestService({ REDIS_URL: redis.url });
    b = await startInstanceBeside(a);
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await redis?.stop();
  });

  const ready = async (url: string) => (await fetch(`${url}/readyz`)).status;
  const preflight = (api: Api, origin: string) =>
    api.request('OPTIONS', '/account', { headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });

  it('a logout answers only once Redis has taken the announcement: 100 ms later the other instance refuses the session', async () => {
    const user = await createLegacyUser(a.api);
    assert.equal((await b.api.get('/account', { token: user.authToken })).status, 200);
    // Redis holds every PUBLISH for a second. A logout that answered before its announcement was
    // taken would leave B serving the session from memory until then, long after the 100 ms.
    const admin = new Redis(redis.url);
    try {
      assert.equal(await admin.call('CLIENT', 'PAUSE', '1000', 'WRITE'), 'OK');
      assert.equal((await a.api.post('/auth/token/destroy', { token: user.authToken })).status, 204);
      await timePassed(100);
      assert.equal((await b.api.get('/account', { token: user.authToken })).status, 401);
    } finally {
      admin.disconnect();
    }
  });

  it('after the bus returns, an instance serves no session, issuer key or origin that changed while it was away', async () => {
    const user = await createLegacyUser(a.api);
    const party = await createThirdParty(a.api);
    const origin = 'https://app.outage.example.com';
    const cors = `/platform/application/${party.applicationId}/cors`;
    assert.equal((await a.api.post(cors, { token: party.owner.authToken, body: { url: origin } })).status, 204);
    const thirdPartyUser = await thirdPartyToken(party);

    await redis.stop();
    await eventually(async () => ((await ready(a.service.url)) === 503 && (await ready(b.service.url)) === 503 ? true : undefined), 'both instances see Redis down', 15_000);
    // B holds these again meanwhile (from the database), then A changes them: announcements B cannot hear.
    assert.equal((await b.api.get('/account', { token: thirdPartyUser })).status, 200);
    assert.equal((await preflight(b.api, origin)).headers.get('access-control-allow-origin'), origin);
    assert.equal((await b.api.get('/account', { token: user.authToken })).status, 200);
    assert.equal((await a.api.delete(`/platform/application/${party.applicationId}/auth/key/${party.kid}`, { token: party.owner.authToken })).status, 204);
    assert.equal((await a.api.delete(cors, { token: party.owner.authToken, body: { url: origin } })).status, 204);
    assert.equal((await a.api.post('/auth/token/destroy', { token: user.authToken })).status, 204);

    await redis.start();
    await eventually(async () => ((await ready(a.service.url)) === 200 && (await ready(b.service.url)) === 200 ? true : undefined), 'both instances ready again', 15_000);
    // Well within the caches' own 30 s: only emptying them when the bus returned refuses these.
    assert.equal((await b.api.get('/account', { token: thirdPartyUser })).status, 401);
    assert.equal((await preflight(b.api, origin)).headers.get('access-control-allow-origin'), null);
    assert.equal((await b.api.get('/account', { token: user.authToken })).status, 401);
    // And what did not change still works, held again from here on.
    const other = await createLegacyUser(a.api);
    assert.equal((await b.api.get('/account', { token: other.authToken })).status, 200);
    assert.ok(b.service.ctx.liveSessions?.find(other.userId, JSON.parse(Buffer.from(other.authToken.split('.')[1]!, 'base64url').toString()).sid as string, Date.now() / 1000));
  });
});
