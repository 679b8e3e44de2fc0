import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startClusterBroker } from '../helpers/cluster.js';
import { createTestClock } from '../helpers/clock.js';
import { mosquittoInstalled } from '../helpers/mosquitto.js';
import { startInstanceBeside, startTestService, TEST_REDIS_URL } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

const WAIT_MS = 20_000;
type Swept = { operationQueue: number; configs: number };
type Running = Awaited<ReturnType<typeof startInstanceBeside>>;
const swept = (instance: Running): Swept => instance.service.subscribers.sweptHere();

/**
 * Issue 33 point 2: the operation queue's sweep and the lock configs' sweep, with an external
 * broker, are run by one instance of a cluster at a time, the holder of each one's turn
 * (src/operations/queue-delivery.ts, src/lock-link/reconcile.ts, src/db/turns.ts): every instance
 * hears every lock's presence and publishes to the same broker, so one sweep is the cluster's.
 * When the holder stops, the other takes the turn at its next interval: the service's clock stands
 * still, so a holder's turn never runs out by itself, only its giving the turn up lets the other
 * take it. With the embedded broker each instance keeps sweeping for the locks on its own broker.
 */
describe('the timed sweeps of a cluster', () => {
  describe('on one external broker: one instance at a time', { skip: !mosquittoInstalled && 'mosquitto not installed' }, () => {
    it('sweeps the queue and the configs on one instance, and on the other once it stops', async () => {
      const t = await startTestService({ REDIS_URL: TEST_REDIS_URL }, { clock: createTestClock() });
      const broker = await startClusterBroker(t, []);
      const everySecond = { lockOps: { ...t.config.lockOps, queueSweepSeconds: 1, sweepSeconds: 1 } };
      const started: Running[] = [];
      try {
        for (let i = 0; i < 2; i += 1) started.push(await startInstanceBeside(t, { ...everySecond, mqtt: { kind: 'external', url: broker.serviceUrl } }));
        const [a, b] = started as [Running, Running];
        // Three sweeps of each kind in the cluster: each instance has looked at its turn at least once.
        await eventually(() => {
          const [x, y] = [swept(a), swept(b)];
          return x.operationQueue + y.operationQueue >= 3 && x.configs + y.configs >= 3;
        }, 'three sweeps of each kind', WAIT_MS);
        for (const kind of ['operationQueue', 'configs'] as const) {
          const counts = [swept(a)[kind], swept(b)[kind]];
          assert.equal(counts.filter((count) => count > 0).length, 1, `${kind}: swept by one instance (${counts.join(', ')})`);
        }
        // The holder of each turn (they may differ) stops: the other sweeps from then on.
        const queueHolder = swept(a).operationQueue > 0 ? a : b;
        const other = queueHolder === a ? b : a;
        const before = swept(other);
        await queueHolder.close();
        await eventually(() => swept(other).operationQueue > before.operationQueue + 1, 'the other instance sweeping the queue', WAIT_MS);
        await eventually(() => swept(other).configs > before.configs + 1, 'the other instance sweeping the configs', WAIT_MS);
      } finally {
        for (const instance of started) await instance.close();
        await broker.close();
        await t.close();
      }
    });
  });

  it('with the embedded broker every instance sweeps its own locks', async () => {
    const t = await startTestService({ REDIS_URL: TEST_REDIS_URL, OPERATION_QUEUE_SWEEP_SECONDS: '1', MQTT_CONFIG_SWEEP_SECONDS: '1' });
    let other: Running | undefined;
    try {
      other = await startInstanceBeside(t);
      const both = [t, other];
      await eventually(() => both.every((instance) => {
        const counts = instance.service.subscribers.sweptHere();
        return counts.operationQueue >= 2 && counts.configs >= 2;
      }), 'both instances sweeping', WAIT_MS);
    } finally {
      await other?.close();
      await t.close();
    }
  });
});
