import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BROKER_LOGIN_LIMITS, throttleLogins } from '../../src/limits/login-throttle.js';
import type { BrokerPolicy } from '../../src/mqtt/broker.js';

const SECRET = 'the right secret';

/** A policy that accepts SECRET for any lock id, counting how often a secret was checked. */
function countingPolicy(): { policy: BrokerPolicy<string>; checks: () => number } {
  let checks = 0;
  const policy: BrokerPolicy<string> = {
    async login(_clientId, username, password) {
      checks += 1;
      return password?.toString() === SECRET ? { ok: true, identity: username ?? '' } : { ok: false, reason: 'bad_credentials' };
    },
    mayPublish: () => true,
    mayRetain: () => true,
    maySubscribe: () => true,
  };
  return { policy, checks: () => checks };
}

function throttled() {
  const { policy, checks } = countingPolicy();
  const waits: number[] = [];
  const throttle = throttleLogins(policy, BROKER_LOGIN_LIMITS, async (ms) => waits.push(ms));
  const login = (lockId: string, secret: string, address: string | undefined) => throttle.login(lockId, lockId, Buffer.from(secret), undefined, address);
  return { login, waits, checks };
}

describe('throttleLogins', () => {
  it('backs off the wrong answers for one lock id, doubling to the cap, yet answers its right secret at once', async () => {
    const { login, waits } = throttled();
    // Each guess from its own address, so only the per-lock back-off is at work.
    for (let i = 0; i < 50; i += 1) assert.equal((await login('lock-a', `guess ${i}`, `192.0.2.${i + 1}`)).ok, false);
    assert.deepEqual(waits, [...Array(10).fill(1000), ...Array(10).fill(2000), ...Array(10).fill(4000), ...Array(20).fill(8000)]);
    waits.length = 0;
    assert.equal((await login('lock-a', SECRET, '198.51.100.1')).ok, true);
    assert.deepEqual(waits, [], 'the right secret is not delayed');
    // Another lock id starts with the plain delay.
    await login('lock-b', 'guess', '198.51.100.2');
    assert.deepEqual(waits, [1000]);
  });

  it('past the per-address limit refuses without checking the secret, for every lock id and the right secret', async () => {
    const { login, checks } = throttled();
    for (let i = 0; i < BROKER_LOGIN_LIMITS.perAddress; i += 1) await login(`lock-${i}`, 'guess', '203.0.113.9');
    assert.equal(checks(), BROKER_LOGIN_LIMITS.perAddress);
    assert.deepEqual(await login('lock-x', SECRET, '203.0.113.9'), { ok: false, reason: 'throttled' });
    // IPv6 counts by /64, IPv4-mapped as IPv4.
    assert.deepEqual(await login('lock-x', SECRET, '::ffff:203.0.113.9'), { ok: false, reason: 'throttled' });
    assert.equal(checks(), BROKER_LOGIN_LIMITS.perAddress);
    assert.equal((await login('lock-x', SECRET, '203.0.113.10')).ok, true);
  });

  it('counts logins in flight, so parallel guesses cannot outrun the limit; successes are given back', async () => {
    const { login, checks } = throttled();
    const results = await Promise.all(Array.from({ length: 45 }, (_, i) => login(`lock-${i}`, 'guess', '2001:db8:1:1::1')));
    assert.equal(results.filter((r) => !r.ok && r.reason === 'throttled').length, 45 - BROKER_LOGIN_LIMITS.perAddress);
    assert.equal(checks(), BROKER_LOGIN_LIMITS.perAddress);

    for (let i = 0; i < 3 * BROKER_LOGIN_LIMITS.perAddress; i += 1) assert.equal((await login(`lock-${i}`, SECRET, '2001:db8:2:2::1')).ok, true);
  });

  it('counts the clients without an address (gone before their login) together, exempting none', async () => {
    const { login, checks } = throttled();
    for (let i = 0; i < 100; i += 1) await login(`lock-${i}`, 'wrong', undefined);
    assert.equal(checks(), BROKER_LOGIN_LIMITS.perAddress);
  });
});
