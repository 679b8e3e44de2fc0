import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { claimNext, finishQueued, findQueued, insertQueued, releaseQueued } from '../../src/operations/queue-queries.js';
import { useMigratedDatabase } from '../helpers/database.js';

/**
 * A queued operation's claim is its lease: an instance that stalled past its lease, and whose
 * operation another instance took over, can neither put it back in the queue nor finish it.
 */
describe('queued operation claims', () => {
  const db = useMigratedDatabase();

  async function queue(lockId: string, now: number): Promise<string> {
    const id = randomUUID();
    await insertQueued(db().kysely, {
      id, lock_id: lockId, user_id: randomUUID(), operation_type: 'MUTATE_LOCK', token: 'x.y.z', caller_ip: '127.0.0.1',
      user_agent: null, state: 'QUEUED', created: now, expires_at: now + 3600, lease_until: null, finished_at: null, error: null, error_message: null,
    });
    return id;
  }

  it('a claim taken over after its lease ran out is lost: its release and its finish change nothing, the new claim finishes', async () => {
    const lockId = randomUUID();
    const id = await queue(lockId, 1_000);
    const first = await claimNext(db().kysely, lockId, 1_000.25, 1_070.25);
    assert.ok(first, 'the first instance claims it');
    assert.equal(await claimNext(db().kysely, lockId, 1_010, 1_080), undefined, 'not while its lease runs');

    const second = await claimNext(db().kysely, lockId, 1_071.5, 1_141.5);
    assert.ok(second, 'the second instance takes it over once the lease ran out');
    assert.equal(await releaseQueued(db().kysely, first), false, 'the stalled instance cannot put it back');
    assert.equal(await finishQueued(db().kysely, first, { state: 'DELIVERED', now: 1_072 }), false, 'nor finish it');
    assert.deepEqual(await findQueued(db().kysely, id).then((row) => [row?.state, row?.lease_until]), ['DELIVERING', 1_141.5]);

    assert.equal(await finishQueued(db().kysely, second, { state: 'REFUSED', now: 1_073, error: { error: 'replayed', message: 'm' } }), true);
    assert.equal((await findQueued(db().kysely, id))?.state, 'REFUSED');
  });

  it('a claim still held is released, and claimed again', async () => {
    const lockId = randomUUID();
    const id = await queue(lockId, 2_000);
    const claim = await claimNext(db().kysely, lockId, 2_000, 2_070);
    assert.ok(claim);
    assert.equal(await releaseQueued(db().kysely, claim), true);
    assert.equal((await findQueued(db().kysely, id))?.state, 'QUEUED');
    const again = await claimNext(db().kysely, lockId, 2_001, 2_071);
    assert.equal(again?.id, id);
    assert.equal(await finishQueued(db().kysely, again!, { state: 'DELIVERED', now: 2_002 }), true);
    assert.equal(await releaseQueued(db().kysely, again!), false, 'finished: nothing to put back');
  });
});
