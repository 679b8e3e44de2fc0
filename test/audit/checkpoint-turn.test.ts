import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHECKPOINT_TURN } from '../../src/audit/checkpoint-signer.js';
import { recordAuditNow } from '../../src/audit/record.js';
import { openDatabase } from '../../src/db/database.js';
import type { ClusterTurn } from '../../src/db/turns.js';
import type { RunningService } from '../../src/server.js';
import { createTestClock } from '../helpers/clock.js';
import { claimLock, createVerifiedUser } from '../helpers/locks.js';
import { startInstanceBeside, startTestService, TEST_REDIS_URL } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

const WAIT_MS = 20_000;

/**
 * Issue 33 point 2: the instances of a cluster (one database, one Redis) sign the audit log's
 * checkpoints in turn, one at a time (src/audit/checkpoint-signer.ts, src/db/turns.ts): the
 * holder signs what the others record; when it stops, another takes over; when it falls silent
 * (a crash), another takes over once its turn has run out, for entries recorded before that too.
 */
describe('audit checkpoints of a cluster: one instance signs for all', () => {
  it('signs what every instance records on one of them, and on another once that one stops or falls silent', async () => {
    const clock = createTestClock();
    const t = await startTestService({ REDIS_URL: TEST_REDIS_URL, AUDIT_CHECKPOINT_INTERVAL_MS: '0' }, { clock });
    const instances: Array<{ service: RunningService; close(): Promise<void> }> = [];
    // The test's own connection: it outlives the instances it stops.
    const database = openDatabase(t.config.database);
    try {
      const user = await createVerifiedUser(t);
      const lock = await claimLock(t, user);
      const db = database.kysely;
      const holder = async () => (await db.selectFrom('cluster_turns').select(['holder', 'expires_at']).where('name', '=', CHECKPOINT_TURN).executeTakeFirst());
      const covered = async () => {
        const head = await db.selectFrom('audit_tree_head').select('size').executeTakeFirstOrThrow();
        const latest = await db.selectFrom('audit_checkpoints').select('tree_size').orderBy('tree_size', 'desc').limit(1).executeTakeFirst();
        return latest !== undefined && Number(latest.tree_size) === Number(head.size);
      };
      const record = (service: RunningService, i: number) => recordAuditNow(service.ctx, { lockId: lock.id, type: 'DOOR_UNLOCK', actorUserId: user.userId, details: { i } });

      // The first instance took the turn at its start; the second, started after, leaves the signing to it.
      const [a, b] = [t.service, (await startInstanceBeside(t)).service];
      instances.push({ service: b, close: () => b.close() });
      assert.equal((await holder())?.holder, a.ctx.instanceName);
      await eventually(covered, 'the claim covered at start', WAIT_MS);
      const [signedByA, signedByB] = [a.ctx.checkpoints.signedHere, b.ctx.checkpoints.signedHere];
      for (let i = 0; i < 6; i++) await record(i % 2 === 0 ? b : a, i);
      await eventually(covered, 'the entries of both instances covered', WAIT_MS);
      assert.ok(a.ctx.checkpoints.signedHere > signedByA, 'the holder signed');
      assert.equal(b.ctx.checkpoints.signedHere, signedByB, 'the other instance signed nothing');

      // The holder stops (it gives the turn up): the other signs its own entries from then on.
      await a.close();
      for (let i = 0; i < 2; i++) await record(b, 10 + i);
      await eventually(covered, 'the entries covered after the holder stopped', WAIT_MS);
      assert.ok(b.ctx.checkpoints.signedHere > signedByB, 'the other instance took over');
      assert.equal((await holder())?.holder, b.ctx.instanceName);

      // A holder that falls silent: b stops, and the row then names an instance that crashed
      // holding the turn for one more second. A third instance records an entry meanwhile: it
      // waits for the crashed one's turn to run out, then takes it and signs.
      await b.close();
      await db.updateTable('cluster_turns').set({ holder: 'crashed', expires_at: clock.now() + 1 }).where('name', '=', CHECKPOINT_TURN).execute();
      const third = await startInstanceBeside(t);
      instances.push(third);
      const signedByC = third.service.ctx.checkpoints.signedHere;
      await record(third.service, 20);
      assert.equal(await covered(), false, 'not signed while the crashed instance\'s turn runs');
      clock.advance(2);
      await eventually(covered, 'the entry covered once the crashed instance\'s turn ran out', WAIT_MS);
      assert.ok(third.service.ctx.checkpoints.signedHere > signedByC);
      assert.equal((await holder())?.holder, third.service.ctx.instanceName);
    } finally {
      for (const instance of instances.reverse()) await instance.close();
      await database.close();
      await t.close();
    }
  });

  it('leaves an entry to the holder only if the holder renewed its turn after that entry, not after an earlier one', async () => {
    // One instance, and a holder that exists only as its row ("silent"): it renews its turn but
    // signs nothing. Entry 1 waits for it; the holder renews after entry 1 and before entry 2;
    // when the instance learns of the renewal (its look at the end of the turn it knew), entry 1
    // is covered by it, entry 2 is not: the instance must sign entry 2 itself once the renewed
    // turn runs out. Keeping the first owed entry's time (the bug) took the renewal as covering
    // entry 2, which then stayed unsigned. The service's clock stands still between the steps.
    const clock = createTestClock();
    const t = await startTestService({ AUDIT_CHECKPOINT_INTERVAL_MS: '0' }, { clock });
    try {
      const user = await createVerifiedUser(t);
      const lock = await claimLock(t, user);
      const db = t.service.ctx.db.kysely;
      const record = (i: number) => recordAuditNow(t.service.ctx, { lockId: lock.id, type: 'DOOR_UNLOCK', actorUserId: user.userId, details: { i } });
      const headSize = async () => Number((await db.selectFrom('audit_tree_head').select('size').executeTakeFirstOrThrow()).size);
      const signedSize = async () => Number((await db.selectFrom('audit_checkpoints').select('tree_size').orderBy('tree_size', 'desc').limit(1).executeTakeFirst())?.tree_size ?? 0);
      const silentUntil = (expiresAt: number) => db.updateTable('cluster_turns').set({ holder: 'silent', expires_at: expiresAt }).where('name', '=', CHECKPOINT_TURN).execute();
      // When the instance asked the row (what tells the test it learnt of the holder): the real turn's claims, watched.
      const turn = (t.service.ctx.checkpoints as unknown as { turn: ClusterTurn }).turn;
      const asked: number[] = [];
      const claim = turn.claim.bind(turn);
      turn.claim = async (now?: number) => {
        const ours = await claim(now);
        asked.push(clock.now());
        return ours;
      };
      await eventually(async () => (await signedSize()) === (await headSize()), 'what the start recorded signed', WAIT_MS);

      // Entry 1, past half of the instance's own turn (so it asks the row): the silent holder's turn runs 0.5 s more.
      clock.advance(10);
      const t1 = clock.now();
      await silentUntil(t1 + 0.5);
      await record(1);
      await eventually(() => asked.includes(t1), 'the instance learnt of the silent holder', WAIT_MS);
      // The holder renews at t1 + 0.2 (its turn then runs to t1 + 15.2); entry 2 at t1 + 0.3, after the renewal, within the turn the instance knows.
      await silentUntil(t1 + 15.2);
      clock.set(t1 + 0.3);
      await record(2);
      const second = await headSize();
      // The instance looks again at the end of the turn it knew, and learns of the renewal.
      clock.set(t1 + 15.1);
      await eventually(() => asked.includes(t1 + 15.1), 'the instance learnt of the renewal', WAIT_MS);
      assert.ok((await signedSize()) < second, 'not signed while the silent holder\'s turn runs');

      // The renewed turn runs out: the instance takes it and signs entry 2.
      clock.set(t1 + 16);
      await eventually(async () => (await signedSize()) >= second, 'entry 2 signed once the silent holder\'s turn ran out', WAIT_MS);
      assert.equal((await db.selectFrom('cluster_turns').select('holder').where('name', '=', CHECKPOINT_TURN).executeTakeFirstOrThrow()).holder, t.service.ctx.instanceName);
    } finally {
      await t.close();
    }
  });
});
