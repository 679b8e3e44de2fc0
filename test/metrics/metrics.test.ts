import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestClock } from '../helpers/clock.js';
import { createUser } from '../helpers/factories.js';
import { startInstanceBeside, startTestService, type TestService } from '../helpers/service.js';
import { claimLock } from '../helpers/locks.js';
import { freePort } from '../helpers/ports.js';

const TOKEN = 'metrics-token-0123456789';


describe('GET /metrics behind a bearer token', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ METRICS_TOKEN: TOKEN, RATE_REQUESTS_PER_CALLER: '3' });
  });
  after(async () => {
    await t.close();
  });

  it('refuses a scrape without the token, or with a user token', async () => {
    const anonymous = await fetch(`${t.service.url}/metrics`);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
    assert.deepEqual(await anonymous.json(), { code: 401, message: 'metrics token required', error: 'unauthenticated' });
    const user = await createUser(t.api);
    assert.equal((await fetch(`${t.service.url}/metrics`, { headers: { authorization: `Bearer ${user.authToken}` } })).status, 401);
    assert.equal((await fetch(`${t.service.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status, 401);
  });

  it('counts requests by route pattern and status, and rate-limit refusals', async () => {
    const user = await createUser(t.api);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await t.api.get('/account', { token: user.authToken })).status);
    assert.ok(statuses.includes(429), String(statuses));
    const res = await fetch(`${t.service.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await res.text();
    assert.match(text, /^latchkey_http_requests_total\{method="GET",route="\/account",status="200"\} \d+$/m);
    assert.match(text, /^latchkey_http_requests_total\{method="GET",route="\/account",status="429"\} \d+$/m);
    assert.match(text, /^latchkey_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/account",status="200"\} \d+$/m);
    assert.match(text, /^latchkey_rate_limit_refusals_total\{route="\/account"\} [1-9]\d*$/m);
    // The request count is the duration histogram's count, the same on every scrape until more requests come.
    const value = (page: string, pattern: RegExp) => Number(pattern.exec(page)?.[1]);
    const total = /^latchkey_http_requests_total\{method="GET",route="\/account",status="200"\} (\d+)$/m;
    const timed = /^latchkey_http_request_duration_seconds_count\{method="GET",route="\/account",status="200"\} (\d+)$/m;
    assert.ok(value(text, total) >= statuses.filter((s) => s === 200).length);
    assert.equal(value(text, total), value(text, timed));
    const again = await (await fetch(`${t.service.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    assert.equal(value(again, total), value(text, total));
    for (const name of ['latchkey_unlock_phase_seconds', 'latchkey_lock_commands_timed_out_total', 'latchkey_locks_online', 'latchkey_sse_streams_open', 'latchkey_broker_reconnects', 'latchkey_bus_reconnects', 'latchkey_lock_reports_total', 'latchkey_audit_checkpoint_lag_seconds']) {
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
    }
    assert.match(text, /^latchkey_locks_online 0$/m);
  });
});

describe('GET /metrics on a listener of its own (METRICS_PORT)', () => {
  let t: TestService;
  let port: number;
  before(async () => {
    port = await freePort();
    t = await startTestService({ METRICS_PORT: String(port) });
  });
  after(async () => {
    await t.close();
  });

  it('is served there, not on the API listener', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /^# TYPE latchkey_http_requests_total counter$/m);
    assert.equal((await fetch(`${t.service.url}/metrics`)).status, 404);
  });
});

describe('the audit checkpoint lag in GET /metrics', () => {
  const clock = createTestClock();
  let t: TestService;
  before(async () => {
    // One checkpoint an hour at most: entries recorded after start-up stay uncovered meanwhile.
    t = await startTestService({ METRICS_TOKEN: TOKEN, AUDIT_CHECKPOINT_INTERVAL_MS: '3600000' }, { clock });
  });
  after(async () => {
    await t.close();
  });

  const lag = async (): Promise<{ value: number; from: number; to: number }> => {
    const from = clock.now();
    const text = await (await fetch(`${t.service.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const to = clock.now();
    const found = /^latchkey_audit_checkpoint_lag_seconds (\S+)$/m.exec(text);
    assert.ok(found, 'latchkey_audit_checkpoint_lag_seconds missing');
    return { value: Number(found[1]), from, to };
  };

  it('is the age of the oldest entry no checkpoint covers, and 0 once one does (whichever instance signs it)', async () => {
    assert.equal((await lag()).value, 0, 'nothing recorded yet');
    const owner = await createUser(t.api);
    const recordedFrom = clock.now();
    await claimLock(t, owner); // records OWNER_ASSIGNED
    const recordedTo = clock.now();
    clock.advance(60);
    const first = await lag();
    // The entry was recorded between recordedFrom and recordedTo, the scrape ran between from and to.
    assert.ok(first.value >= first.from - recordedTo - 1e-3 && first.value <= first.to - recordedFrom + 1e-3, JSON.stringify({ first, recordedFrom, recordedTo }));
    assert.ok(first.value > 0);

    await claimLock(t, owner); // a newer entry: the lag is still the oldest one's
    const second = await lag();
    assert.ok(second.value >= second.from - recordedTo - 1e-3, JSON.stringify({ second, recordedTo }));

    // Another instance on the same database signs the head as it starts: every entry is covered.
    const signer = await startInstanceBeside(t);
    try {
      assert.equal((await lag()).value, 0);
    } finally {
      await signer.close();
    }
  });
});
