import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALARM_SWEEP_TURN } from '../../src/alarms/watch.js';
import { openDatabase } from '../../src/db/database.js';
import { createTestClock } from '../helpers/clock.js';
import { startInstanceBeside, startTestService, TEST_REDIS_URL } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

const WAIT_MS = 20_000;

/**
 * Issue 33 point 2: the timed alarms are swept by one instance of a cluster at a time, the holder
 * of the turn `alarm-sweep` (src/alarms/watch.ts, src/db/turns.ts); when it stops, another takes
 * the turn at its next interval. The service's clock stands still, so the holder's turn never runs
 * out by itself: only the stopping holder giving it up lets the other take it.
 */
describe('the alarm sweep of a cluster: one instance at a time', () => {
  it('is held by one instance, and taken over by the other when it stops', async () => {
    const clock = createTestClock();
    const t = await startTestService({ REDIS_URL: TEST_REDIS_URL, ALARM_SWEEP_MS: '200' }, { clock });
    const database = openDatabase(t.config.database);
    let other: Awaited<ReturnType<typeof startInstanceBeside>> | undefined;
    try {
      other = await startInstanceBeside(t);
      const names = [t.service.ctx.instanceName, other.service.ctx.instanceName];
      const holder = async () => (await database.kysely.selectFrom('cluster_turns').select('holder').where('name', '=', ALARM_SWEEP_TURN).executeTakeFirst())?.holder;
      const first = await eventually(async () => (await holder()) ?? undefined, 'a holder of the sweep', WAIT_MS);
      assert.ok(names.includes(first), first);
      const [stopping, staying] = first === names[0] ? [t.service, other.service] : [other.service, t.service];
      const expiresAt = async () => Number((await database.kysely.selectFrom('cluster_turns').select('expires_at').where('name', '=', ALARM_SWEEP_TURN).executeTakeFirstOrThrow()).expires_at);
      assert.ok((await expiresAt()) > clock.now(), 'the holder\'s turn runs past the stopped clock');
      await stopping.close();
      await eventually(async () => (await holder()) === staying.ctx.instanceName, 'the other instance sweeping', WAIT_MS);
    } finally {
      await other?.close();
      await database.close();
      await t.close();
    }
  });
});
