import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MqttClient } from 'mqtt';
import { provisionLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';

// CONNACK return codes of MQTT 3.1.1.
const ACCEPTED = 0;
const BAD_USERNAME_OR_PASSWORD = 4;
const NOT_AUTHORIZED = 5;
// src/limits/login-throttle.ts BROKER_LOGIN_LIMITS.perAddress.
const CHECKED_PER_ADDRESS = 30;

/**
 * One MQTT 3.1.1 CONNECT, as any client would send it, from the loopback address `from` (all of
 * 127/8 is this machine, so each stands for another client); resolves with the CONNACK's code.
 */
function connectFrom(port: number, from: string, login: { id: string; secret: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const client = new MqttClient(() => createConnection({ host: '127.0.0.1', port, localAddress: from }), {
      clientId: login.id,
      username: login.id,
      password: login.secret,
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 60_000,
    });
    const done = (code: number) => {
      client.end(true);
      resolve(code);
    };
    client.once('connect', () => done(ACCEPTED));
    client.once('error', (err: Error & { code?: unknown }) => (typeof err.code === 'number' ? done(err.code) : reject(err)));
  });
}

describe('wrong device secrets on the embedded broker are throttled', () => {
  let t: TestService;
  let port: number;
  let lock: Awaited<ReturnType<typeof provisionLock>>;
  before(async () => {
    t = await startTestService();
    port = t.service.ctx.broker!.port;
    lock = await provisionLock(t);
  });
  after(() => t.close());

  it('a burst of guesses is refused, mostly unchecked; the real lock still connects; the guessing address stays refused', async () => {
    const guesser = '127.0.0.2';
    const guesses = await Promise.all(Array.from({ length: 50 }, (_, i) => connectFrom(port, guesser, { id: lock.id, secret: `guess-${i}` })));
    // Every guess refused; only the address's allowance had its secret checked at all.
    assert.equal(guesses.filter((code) => code === BAD_USERNAME_OR_PASSWORD).length, CHECKED_PER_ADDRESS, guesses.join(','));
    assert.equal(guesses.filter((code) => code === NOT_AUTHORIZED).length, 50 - CHECKED_PER_ADDRESS, guesses.join(','));

    // The lock under attack, from its own address, with its secret: in.
    assert.equal(await connectFrom(port, '127.0.0.3', lock), ACCEPTED);
    // The guessing address is refused without its secret being checked, even the right one.
    assert.equal(await connectFrom(port, guesser, lock), NOT_AUTHORIZED);
    // Another lock at an untouched address is unaffected.
    const other = await provisionLock(t);
    assert.equal(await connectFrom(port, '127.0.0.4', other), ACCEPTED);
  });

  it('right secrets from one address are given back: many locks behind one address keep connecting', async () => {
    const site = '127.0.0.5';
    for (let i = 0; i < CHECKED_PER_ADDRESS + 5; i += 1) {
      const each = await provisionLock(t);
      assert.equal(await connectFrom(port, site, each), ACCEPTED, `lock ${i}`);
    }
    // Its allowance for failures is whole: a wrong secret is still checked.
    const fresh = await provisionLock(t);
    assert.equal(await connectFrom(port, site, { id: fresh.id, secret: 'wrong' }), BAD_USERNAME_OR_PASSWORD);
  });
});
