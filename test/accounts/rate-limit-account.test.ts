import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser } from '../helpers/factories.js';
import type { ApiResponse } from '../helpers/http.js';
import { startTestService, useService, type TestService } from '../helpers/service.js';
import { assertError } from './support.js';

const FAILURES_ALLOWED = 3;
// Not a multiple of FAILURES_ALLOWED, so the ceiling falls in the middle of an address's allowance.
const FAILURES_ALLOWED_ALL = 7;

/** A request as it arrives through the trusted proxy from the client at `address`. */
const from = (address: string) => ({ 'x-forwarded-for': address });

function assertTooMany(res: ApiResponse): void {
  assertError(res, 429);
  const retryAfter = res.headers.get('retry-after');
  assert.match(retryAfter ?? '', /^\d+$/, 'Retry-After is a whole number of seconds');
  assert.ok(Number(retryAfter) >= 1);
}

describe('failed logins per account and address (RATE_LOGIN_FAILURES_PER_ACCOUNT, _ALL)', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({
      RATE_LOGIN_FAILURES_PER_ACCOUNT: String(FAILURES_ALLOWED),
      RATE_LOGIN_FAILURES_PER_ACCOUNT_ALL: String(FAILURES_ALLOWED_ALL),
      RATE_AUTH_PER_IP: '100000',
      TRUST_PROXY: '127.0.0.1,::1',
    });
  });

  const login = (email: string, password: string, address: string) => t.api.post('/auth/token', { body: { email, password }, headers: from(address) });

  it('a guesser at one address is refused there, while the owner at another address logs in', async () => {
    const owner = await createUser(t.api);
    const guesser = '203.0.113.7';
    for (let i = 0; i < FAILURES_ALLOWED; i += 1) assertError(await login(owner.email, `guess ${i}`, guesser), 401);
    assertTooMany(await login(owner.email, 'another guess', guesser));
    // Even the right password is not checked at the guesser's address.
    assertTooMany(await login(owner.email, owner.password, guesser));
    const res = await login(owner.email, owner.password, '198.51.100.20');
    assert.equal(res.status, 200, res.text);
    // The guesser's address stays refused: the owner's success cleared only the owner's address.
    assertTooMany(await login(owner.email, 'yet another guess', guesser));
  });

  it('an IPv6 guesser is counted by its /64: hopping addresses within it does not help', async () => {
    const owner = await createUser(t.api);
    for (let i = 0; i < FAILURES_ALLOWED; i += 1) assertError(await login(owner.email, `guess ${i}`, `2001:db8:7:7::${i + 1}`), 401);
    assertTooMany(await login(owner.email, 'guess', '2001:db8:7:7:ffff::1'));
    assert.equal((await login(owner.email, owner.password, '2001:db8:7:8::1')).status, 200);
  });

  it('guessing spread over many addresses meets the account-wide ceiling; refused attempts do not count towards it', async () => {
    const owner = await createUser(t.api);
    // The first address keeps guessing after it is refused: those refusals must not spend the ceiling.
    for (let i = 0; i < FAILURES_ALLOWED; i += 1) assertError(await login(owner.email, 'guess', '192.0.2.1'), 401);
    for (let i = 0; i < 5; i += 1) assertTooMany(await login(owner.email, 'guess', '192.0.2.1'));
    for (let i = 0; i < FAILURES_ALLOWED; i += 1) assertError(await login(owner.email, 'guess', '192.0.2.2'), 401);
    assertError(await login(owner.email, 'guess', '192.0.2.3'), 401);
    // 7 failures from three addresses: the ceiling is reached, and every address is refused, even with the right password.
    assertTooMany(await login(owner.email, 'guess', '192.0.2.4'));
    assertTooMany(await login(owner.email, owner.password, '192.0.2.5'));
    // Another account is untouched.
    const other = await createUser(t.api);
    assert.equal((await login(other.email, other.password, '192.0.2.4')).status, 200);
  });

  it('successful logins do not spend the account-wide ceiling', async () => {
    const owner = await createUser(t.api);
    for (let i = 0; i < FAILURES_ALLOWED_ALL + 2; i += 1) {
      const res = await login(owner.email, owner.password, `198.51.100.${i + 1}`);
      assert.equal(res.status, 200, res.text);
    }
    assertError(await login(owner.email, 'wrong', '198.51.100.200'), 401);
  });
  after(() => t.close());

  it('after the allowed failures the account answers 429 with Retry-After, even to the right password', async () => {
    const user = await createUser(t.api);
    for (let i = 0; i < FAILURES_ALLOWED; i += 1) {
      assertError(await t.api.post('/auth/token', { body: { email: user.email, password: `wrong ${i}` } }), 401);
    }
    assertTooMany(await t.api.post('/auth/token', { body: { email: user.email, password: 'wrong again' } }));
    assertTooMany(await t.api.post('/auth/token', { body: { email: user.email, password: user.password } }));
    assertTooMany(await t.api.post('/auth/token', { body: { email: user.email.toUpperCase(), password: user.password } }));
    // Sessions that already exist are not affected.
    assert.equal((await t.api.get('/account', { token: user.authToken })).status, 200);
  });

  it('parallel guesses cannot overrun the limit', async () => {
    const user = await createUser(t.api);
    const attempts = await Promise.all(Array.from({ length: 12 }, (_, i) => t.api.post('/auth/token', { body: { email: user.email, password: `guess ${i}` } })));
    const statuses = attempts.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 401).length, FAILURES_ALLOWED, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 12 - FAILURES_ALLOWED, statuses.join(','));
  });

  it('counts per account: another account is unaffected', async () => {
    const victim = await createUser(t.api);
    const other = await createUser(t.api);
    for (let i = 0; i <= FAILURES_ALLOWED; i += 1) await t.api.post('/auth/token', { body: { email: victim.email, password: 'wrong' } });
    const res = await t.api.post('/auth/token', { body: { email: other.email, password: other.password } });
    assert.equal(res.status, 200, res.text);
  });

  it('a successful login clears the failures', async () => {
    const user = await createUser(t.api);
    for (let round = 0; round < 2; round += 1) {
      for (let i = 0; i < FAILURES_ALLOWED - 1; i += 1) {
        assertError(await t.api.post('/auth/token', { body: { email: user.email, password: 'wrong' } }), 401);
      }
      assert.equal((await t.api.post('/auth/token', { version: 2, body: { email: user.email, password: user.password } })).status, 200);
    }
  });

  it('unknown emails are limited the same way (no hint that they do not exist)', async () => {
    const email = `nobody-${process.pid}-${Date.now()}@example.com`;
    for (let i = 0; i < FAILURES_ALLOWED; i += 1) assertError(await t.api.post('/auth/token', { body: { email, password: 'wrong' } }), 401);
    assertTooMany(await t.api.post('/auth/token', { body: { email, password: 'wrong' } }));
  });

  it('wrong old passwords on POST /account/password are limited too', async () => {
    const user = await createUser(t.api);
    for (let i = 0; i < FAILURES_ALLOWED; i += 1) {
      assertError(await t.api.post('/account/password', { token: user.authToken, body: { oldPassword: 'wrong', newPassword: 'a new password' } }), 403);
    }
    assertTooMany(await t.api.post('/account/password', { token: user.authToken, body: { oldPassword: user.password, newPassword: 'a new password' } }));
    // The password did not change.
    assert.equal((await t.api.post('/auth/token', { body: { email: user.email, password: user.password } })).status, 200);
  });
});

describe('a password reset lifts the account-wide ceiling', () => {
  const t = useService({ withMail: true, env: { RATE_LOGIN_FAILURES_PER_ACCOUNT: '2', RATE_LOGIN_FAILURES_PER_ACCOUNT_ALL: '4', RATE_AUTH_PER_IP: '100000', TRUST_PROXY: '127.0.0.1,::1' } });
  const login = (email: string, password: string, address: string) => t.api.post('/auth/token', { body: { email, password }, headers: from(address) });

  it('the owner who proves the mailbox logs in again at once', async () => {
    const owner = await createUser(t.api);
    for (const address of ['192.0.2.1', '192.0.2.1', '192.0.2.2', '192.0.2.2']) assertError(await login(owner.email, 'guess', address), 401);
    assertTooMany(await login(owner.email, owner.password, '198.51.100.1'));

    assert.equal((await t.api.post('/account/password/reset/initialize', { body: { email: owner.email }, headers: from('198.51.100.1') })).status, 204);
    const mail = await t.sink.waitFor((m) => m.to.includes(owner.email) && /reset/i.test(m.subject));
    const token = /Reset token: ([\w-]+)/.exec(mail.text)?.[1];
    assert.ok(token, mail.text);
    const done = await t.api.post('/account/password/reset/verify', { body: { userId: owner.userId, token, password: 'a brand new password' }, headers: from('198.51.100.1') });
    assert.equal(done.status, 204, done.text);

    const res = await login(owner.email, 'a brand new password', '198.51.100.1');
    assert.equal(res.status, 200, res.text);
    // The guessers' own addresses are still counted.
    assertTooMany(await login(owner.email, 'guess', '192.0.2.1'));
  });
});
