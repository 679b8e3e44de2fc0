import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClusterTurn } from '../../src/db/turns.js';
import { useMigratedDatabase } from '../helpers/database.js';

/** Two instances' views of one turn (src/db/turns.ts) on one database, by a clock the test moves. */
describe('a turn of the cluster', () => {
  const database = useMigratedDatabase();

  it('is held by one instance, renewed by it, taken over once it runs out or is given up', async () => {
    const db = database().kysely;
    let now = 1000;
    const clock = () => now;
    const a = new ClusterTurn(db, 'sweep', 'instance-a', 10, clock);
    const b = new ClusterTurn(db, 'sweep', 'instance-b', 10, clock);
    const holder = async () => (await db.selectFrom('cluster_turns').select(['holder', 'expires_at']).where('name', '=', 'sweep').executeTakeFirstOrThrow());

    assert.equal(await a.take(), true, 'the first to look takes a free turn');
    assert.equal(await b.take(), false);
    assert.equal(b.othersUntil(), 1010);
    assert.equal(a.othersUntil(), null);
    assert.equal(a.held(), true);

    now = 1006; // under half of A's turn left: its next look renews it
    assert.equal(await a.take(), true);
    assert.deepEqual(await holder(), { holder: 'instance-a', expires_at: 1016 });
    now = 1011; // B's memory says A's turn ran out; the database says it was renewed
    assert.equal(b.othersUntil(), null);
    assert.equal(await b.take(), false);
    assert.equal(b.othersUntil(), 1016);
    assert.equal(b.othersSince(), 1006);

    now = 1017; // A fell silent: B takes over, and A learns it at its next look
    assert.equal(await b.take(), true);
    assert.equal(a.held(), false);
    assert.equal(await a.take(), false);
    assert.equal(a.othersUntil(), 1027);

    await b.release(); // a clean stop: A need not wait for the end of B's turn
    assert.equal(b.held(), false);
    assert.equal(await a.claim(), true);
    assert.deepEqual(await holder(), { holder: 'instance-a', expires_at: 1027 });
    await a.release();
    await a.release(); // no longer held: nothing to give up
    const other = new ClusterTurn(db, 'checkpoint', 'instance-b', 10, clock);
    assert.equal(await other.take(), true, 'each kind of work has a turn of its own');
  });
});
