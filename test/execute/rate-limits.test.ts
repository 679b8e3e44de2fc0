import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiResponse } from '../helpers/http.js';
import { createUser } from '../helpers/factories.js';
import { claimLock, shareLock } from '../helpers/locks.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { certify, execute, settingDuration, signed, type Signer } from './support.js';

const PER_USER = 4;
const PER_LOCK = 6;

function assertTooMany(res: ApiResponse): void {
  assert.equal(res.status, 429, res.text);
  assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.body.code, 429);
  assert.equal(typeof res.body.message, 'string');
  assert.ok(res.body.message.length > 0);
}

describe('execute: rate limits per user and per lock', () => {
  let t: TestService;

  before(async () => {
    t = await startTestService({ CERT_CHECK: 'never', RATE_EXECUTE_PER_USER: String(PER_USER), RATE_EXECUTE_PER_LOCK: String(PER_LOCK) });
  });
  after(async () => t?.close());

  const signer = async () => certify(t, await createUser(t.api));
  /** A MUTATE_SETTING (needs no lock online, so members are shared as ADMIN) by `who` on `lockId`. */
  const setting = (who: Signer, lockId: string, seconds = 5) => execute(t, who, lockId, signed(who, lockId, settingDuration(seconds)));
  async function expectOk(who: Signer, lockId: string, times: number): Promise<void> {
    for (let i = 0; i < times; i++) {
      const res = await setting(who, lockId, 5 + i);
      assert.equal(res.status, 200, res.text);
    }
  }

  it('answers 429 with Retry-After to a user over their limit, on any lock; other users go on', async () => {
    const user = await signer();
    const [a, b] = [await claimLock(t, user), await claimLock(t, user)];
    await expectOk(user, a.id, PER_USER);
    assertTooMany(await setting(user, b.id));
    // Junk is refused by the same count, before its signature is looked at.
    assertTooMany(await execute(t, user, b.id, 'not.a.token'));

    const other = await signer();
    await shareLock(t, a.id, user, other.userId, { role: 'ADMIN' });
    await expectOk(other, a.id, 1);
  });

  it('counts a lock across its members; another lock is not affected', async () => {
    const [admin, member] = [await signer(), await signer()];
    const lock = await claimLock(t, admin);
    await shareLock(t, lock.id, admin, member.userId, { role: 'ADMIN' });
    await expectOk(admin, lock.id, PER_USER);
    await expectOk(member, lock.id, PER_LOCK - PER_USER);
    assertTooMany(await setting(member, lock.id));

    // The member still has allowance of their own, and their other lock has its own count.
    const elsewhere = await claimLock(t, member);
    await expectOk(member, elsewhere.id, 1);
  });

  it('answers 404, not 429, to a non-member of a lock over its limit', async () => {
    const [admin, member, stranger] = [await signer(), await signer(), await signer()];
    const lock = await claimLock(t, admin);
    await shareLock(t, lock.id, admin, member.userId, { role: 'ADMIN' });
    await expectOk(admin, lock.id, PER_USER);
    await expectOk(member, lock.id, PER_LOCK - PER_USER);
    assertTooMany(await setting(member, lock.id));

    const res = await setting(stranger, lock.id);
    assert.equal(res.status, 404, res.text);
    assert.equal(res.headers.get('retry-after'), null);
  });
});
