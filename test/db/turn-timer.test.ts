import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { createInProcessBus } from '../../src/bus/event-bus.js';
import { TurnTimer } from '../../src/db/turns.js';
import { useMigratedDatabase } from '../helpers/database.js';
import { eventually } from '../helpers/wait.js';

const logger = pino({ level: 'silent' });

/**
 * A cluster's periodic work taken in turn (TurnTimer, src/db/turns.ts): two instances' timers on
 * one database and one bus, by a clock the test moves (the turn's expiry); the ticks are real.
 */
describe('work done in turn by the cluster', () => {
  const database = useMigratedDatabase();
  const holder = async (name: string) => (await database().kysely.selectFrom('cluster_turns').select(['holder', 'expires_at']).where('name', '=', name).executeTakeFirst());

  it('keeps its turn through a run longer than the turn, so no other instance runs it meanwhile', async () => {
    let now = 1000;
    const bus = createInProcessBus();
    const deps = (instanceName: string) => ({ db: database(), instanceName, now: () => now, bus, logger });
    let finish!: () => void;
    const longRun = new Promise<void>((resolve) => (finish = resolve));
    const a = new TurnTimer(deps('a'), { turn: 'long', intervalMs: 100, what: 'a long run', run: () => longRun });
    const b = new TurnTimer(deps('b'), { turn: 'long', intervalMs: 100, what: 'a long run', run: () => undefined });
    try {
      a.start();
      await eventually(() => a.runsHere === 1, 'the first instance running');
      b.start();
      // The turn is 0.3 s: each move of the clock by 0.2 s leaves less than half of it, which the
      // holder's next tick renews while its run goes on. Without the renewal it ran out, and the
      // other instance took it and ran the same work.
      for (let i = 0; i < 5; i++) {
        now += 0.2;
        await eventually(async () => (await holder('long'))?.expires_at === now + 0.3, `the holder renewing its turn at ${now}`);
      }
      assert.equal((await holder('long'))?.holder, 'a');
      assert.equal(b.runsHere, 0, 'the other instance never ran');
    } finally {
      finish();
      await a.stop();
      await b.stop();
    }
  });

  it('is handed over by an instance that cannot do it now, and taken by one that can', async () => {
    const bus = createInProcessBus();
    // The clock stands still: the holder's turn never runs out by itself, only its giving up frees it.
    const deps = (instanceName: string) => ({ db: database(), instanceName, now: () => 2000, bus, logger });
    let aConnected = true;
    const a = new TurnTimer(deps('a'), { turn: 'eligible', intervalMs: 50, what: 'a sweep', run: () => undefined, eligible: () => aConnected });
    const b = new TurnTimer(deps('b'), { turn: 'eligible', intervalMs: 50, what: 'a sweep', run: () => undefined, eligible: () => true });
    try {
      a.start();
      await eventually(() => a.runsHere >= 1, 'the first instance sweeping');
      b.start();
      aConnected = false;
      await eventually(() => b.runsHere >= 2, 'the other instance sweeping');
      assert.equal((await holder('eligible'))?.holder, 'b');
      const runsOfA = a.runsHere;
      await eventually(() => b.runsHere >= 4, 'the other instance sweeping on');
      assert.equal(a.runsHere, runsOfA, 'the instance that cannot sweep claims no turn');
      assert.equal((await holder('eligible'))?.holder, 'b');
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
