import assert from 'node:assert/strict';
import { createConnection, createServer, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { startClusterBroker } from '../helpers/cluster.js';
import { createTestClock } from '../helpers/clock.js';
import { startInstanceBeside, startTestService, TEST_REDIS_URL } from '../helpers/service.js';
import { eventually } from '../helpers/wait.js';

/**
 * The sweeps taken in turn with an external broker (src/db/turns.ts TurnTimer): an instance off
 * the broker sees every lock offline and publishes nowhere, so it gives the turns up and an
 * instance still connected sweeps (review: the holder kept them, sweeping for nothing, through
 * the outage). The holder reaches the broker through a proxy the test closes; the service's clock
 * stands still, so the turns change hands by being given up, not by running out.
 */
describe('the sweeps of a cluster while their holder is off the broker', () => {
  it('are taken over by a connected instance', async () => {
    const t = await startTestService({ REDIS_URL: TEST_REDIS_URL }, { clock: createTestClock() });
    const broker = await startClusterBroker(t, []);
    const target = new URL(broker.serviceUrl);
    const sockets = new Set<Socket>();
    let open = true;
    const proxy = createServer((client) => {
      if (!open) return client.destroy();
      const upstream = createConnection(Number(target.port), target.hostname);
      sockets.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const drop = () => { client.destroy(); upstream.destroy(); };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxied = new URL(broker.serviceUrl);
    proxied.port = String((proxy.address() as { port: number }).port);
    const everySecond = { lockOps: { ...t.config.lockOps, queueSweepSeconds: 1, sweepSeconds: 1 } };
    const started: Array<Awaited<ReturnType<typeof startInstanceBeside>>> = [];
    try {
      const holder = await startInstanceBeside(t, { ...everySecond, mqtt: { kind: 'external', url: proxied.toString() } });
      started.push(holder);
      await eventually(() => holder.service.subscribers.sweptHere().operationQueue >= 1 && holder.service.subscribers.sweptHere().configs >= 1, 'the proxied instance holding the sweeps\' turns', 20_000);
      const other = await startInstanceBeside(t, { ...everySecond, mqtt: { kind: 'external', url: broker.serviceUrl } });
      started.push(other);
      // Cut the holder off the broker (only it goes through the proxy), and keep it off.
      open = false;
      for (const socket of sockets) socket.destroy();
      await eventually(() => !holder.service.ctx.link.brokerStatus().connected, 'the holder off the broker', 20_000);
      assert.equal(other.service.ctx.link.brokerStatus().connected, true);
      await eventually(() => other.service.subscribers.sweptHere().operationQueue >= 1 && other.service.subscribers.sweptHere().configs >= 1, 'the connected instance sweeping the queue and the configs', 20_000);
      await eventually(() => holder.service.ctx.link.brokerStatus().connected === false, 'the holder still off the broker');
    } finally {
      open = true;
      for (const instance of started.reverse()) await instance.close();
      proxy.close();
      await broker.close();
      await t.close();
    }
  });
});
