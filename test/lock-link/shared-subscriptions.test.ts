import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { connectAsync } from 'mqtt';
import { openStream, type SseStream } from '../events/sse-client.js';
import { signed, unlock, type Signer } from '../execute/support.js';
import { runSimulator } from '../../src/simulator/run-simulator.js';
import { reportsTakenBy, reportsTakenByAll, SERVICE_USER, startClusterBroker, useClusterTestService, type ClusterInstance as Instance } from '../helpers/cluster.js';
import { auditEntriesOf, claimLock } from '../helpers/locks.js';
import { mosquittoInstalled } from '../helpers/mosquitto.js';
import { connectTestLock } from '../helpers/test-lock.js';
import { eventually } from '../helpers/wait.js';

const KINDS = ['online', 'state', 'event', 'operation'] as const;
const WAIT_MS = 20_000;

function execute(instance: Instance, signer: Signer, lockId: string) {
  return instance.api.post(`/device/${lockId}/execute`, { token: signer.authToken, rawBody: signed(signer, lockId, unlock), contentType: 'application/json;charset=UTF-8' });
}

/**
 * Issue 33 point 2: three instances on one PostgreSQL (or SQLite) database, one Redis and one
 * Mosquitto with the documented configuration, the lock simulator as the lock. A second client of
 * the broker (the service's login, no shared subscription) sees every report the lock publishes;
 * each must be taken by exactly one instance, counted by their `latchkey_lock_reports_total`.
 */
describe('several instances on one broker: each lock report to one instance', { skip: !mosquittoInstalled && 'mosquitto not installed' }, () => {
  const cluster = useClusterTestService();

  it('records each report once, routes each reply to its sender, keeps presence and events on every instance, one instance going away', async () => {
    const { t, admin } = cluster;
    const lock = await claimLock(t, admin);
    const oldLock = await claimLock(t, admin);
    const broker = await startClusterBroker(t, [lock, oldLock]);
    const { mosquitto } = broker;
    const observer = await connectAsync(mosquitto.url, { username: SERVICE_USER.username, password: SERVICE_USER.password, protocolVersion: 4, reconnectPeriod: 0 });
    const published: Record<string, number> = {};
    const replyTopics: string[] = [];
    observer.on('message', (topic) => {
      const kind = topic.split('/')[2]!;
      if (kind === 'reply') replyTopics.push(topic);
      else if ((KINDS as readonly string[]).includes(kind)) published[kind] = (published[kind] ?? 0) + 1;
    });
    await observer.subscribeAsync(`locks/${lock.id}/#`, { qos: 1 });
    const instances: Instance[] = [];
    const streams: SseStream[] = [];
    const stdin = new PassThrough();
    /** A line to the simulator, once the broker has passed on the lock's `events`-th door event. */
    const say = async (line: string, events: number) => {
      stdin.write(`${line}\n`);
      await eventually(() => published.event === events, `door event ${events}`, WAIT_MS);
    };
    let closeSimulator = async (): Promise<void> => undefined;
    try {
      for (let i = 0; i < 3; i += 1) instances.push(await broker.startInstance());
      for (const instance of instances) streams.push(await openStream(instance.service.url, `/device/events?device=${lock.id}`, { token: admin.authToken }));
      const simulator = await runSimulator({ id: lock.id, secret: lock.secret, mqttUrl: mosquitto.url, trustedRoot: t.service.ctx.pki.rootCertificate, stdin, stdout: new PassThrough() });
      closeSimulator = () => simulator.close();

      // Presence: every instance knows the lock is online, though one recorded it.
      await eventually(() => instances.every((instance) => instance.service.ctx.link.isOnline(lock.id)), 'the lock online on every instance', WAIT_MS);
      for (let i = 0; i < 6; i += 1) {
        const res = await execute(instances[i % 3]!, admin, lock.id);
        assert.equal(res.status, 200, res.text);
      }
      // A 1.6 lock replied to the instance that sent each command, never on the topic all instances hear.
      await eventually(() => replyTopics.length === 6, 'six replies', WAIT_MS);
      assert.ok(replyTopics.every((topic) => topic.startsWith(`locks/${lock.id}/reply/`)), replyTopics.join(', '));
      assert.equal(new Set(replyTopics).size, 3, replyTopics.join(', '));
      // A door opens and shuts (as doors do: not within the same millisecond, the reports' `ts` tells their order), then a hand unlocks.
      await say('open', 1);
      await say('close', 2);
      stdin.write('manual unlock\n');

      // Every report the lock published, taken by exactly one instance.
      const settled = async () => {
        await Promise.all(instances.map((instance) => instance.service.subscribers.lockReportsRecorded()));
        const recorded = await reportsTakenByAll(instances);
        return KINDS.every((kind) => (recorded[kind] ?? 0) === (published[kind] ?? 0)) && published.event === 2 && published.operation === 1 ? recorded : undefined;
      };
      await eventually(settled, 'each report recorded once', WAIT_MS).catch(async (err: unknown) => {
        throw new Error(`${String(err)}: published ${JSON.stringify(published)}, recorded ${JSON.stringify(await reportsTakenByAll(instances))}`);
      });
      // Spread over the cluster, not all on one instance.
      assert.ok((await Promise.all(instances.map(reportsTakenBy))).filter((counts) => (counts.state ?? 0) > 0).length >= 2);

      // Live events reach every instance's streams, whichever instance recorded them.
      const unlocks = (stream: SseStream) => stream.events.filter((e) => e.event === 'DOOR_UNLOCK').length;
      for (const stream of streams) await eventually(() => unlocks(stream) >= 7 && stream.events.some((e) => e.event === 'DOOR_OPEN'), 'the unlocks and the door on every stream', WAIT_MS);

      // One instance goes away: the others go on taking every report and every unlock.
      streams.shift()!.close();
      const gone = instances.shift()!;
      const goneCounts = await reportsTakenBy(gone);
      await gone.close();
      for (let i = 0; i < 4; i += 1) assert.equal((await execute(instances[i % 2]!, admin, lock.id)).status, 200);
      await say('open', 3);
      await say('close', 4);
      await eventually(async () => {
        await Promise.all(instances.map((instance) => instance.service.subscribers.lockReportsRecorded()));
        const now = await reportsTakenByAll(instances);
        return published.event === 4 && KINDS.every((kind) => (now[kind] ?? 0) + (goneCounts[kind] ?? 0) === (published[kind] ?? 0));
      }, 'each report recorded once by the instances left', WAIT_MS);
      const doors = (stream: SseStream) => stream.events.filter((e) => e.event === 'DOOR_OPEN' || e.event === 'DOOR_CLOSE').length;
      for (const stream of streams) await eventually(() => unlocks(stream) >= 11 && doors(stream) >= 4, 'the later unlocks and door events on the streams left', WAIT_MS);
      const audited = await auditEntriesOf(t, lock.id);
      assert.equal(audited.filter((e) => e.type === 'DOOR_UNLOCK' && e.actor_user_id === admin.userId && e.rejected === 0).length, 10);
      assert.equal(audited.filter((e) => e.type === 'DEVICE_CONNECTED').length, 1);
      assert.equal(audited.filter((e) => e.type === 'DOOR_OPEN').length, 2, JSON.stringify(audited.map((e) => [e.type, e.actor_user_id, e.details ?? null])));

      // An instance joining later knows the lock is online (its retained presence) and serves an unlock.
      const late = await broker.startInstance();
      instances.push(late);
      await eventually(() => late.service.ctx.link.isOnline(lock.id), 'the lock online on the late instance', WAIT_MS);
      assert.equal((await execute(late, admin, lock.id)).status, 200);

      // A lock before protocol 1.6 ignores `replyTo` and replies on `reply`: the sender still gets it.
      const old = await connectTestLock({ url: mosquitto.url, id: oldLock.id, secret: oldLock.secret });
      try {
        await eventually(() => instances.every((instance) => instance.service.ctx.link.isOnline(oldLock.id)), 'the old lock online on every instance', WAIT_MS);
        for (const instance of instances) assert.equal((await execute(instance, admin, oldLock.id)).status, 200);
      } finally {
        await old.close();
      }

      // The lock loses power (its will) and comes back: every instance follows, each change recorded once.
      const presences = async (type: string) => (await auditEntriesOf(t, lock.id)).filter((e) => e.type === type).length;
      stdin.write('offline\n');
      await eventually(() => instances.every((instance) => !instance.service.ctx.link.isOnline(lock.id)), 'the lock offline on every instance after its power cut', WAIT_MS);
      stdin.write('online\n');
      await eventually(() => instances.every((instance) => instance.service.ctx.link.isOnline(lock.id)), 'the lock online again on every instance', WAIT_MS);
      for (const instance of instances) assert.equal((await execute(instance, admin, lock.id)).status, 200);
      await eventually(async () => (await presences('DEVICE_DISCONNECTED')) === 1 && (await presences('DEVICE_CONNECTED')) === 2, 'the power cut and the return recorded once each', WAIT_MS);

      // An instance restarts while the lock is online: back, it knows so at once and serves unlocks.
      await instances.shift()!.close();
      const restarted = await broker.startInstance();
      instances.push(restarted);
      await eventually(() => restarted.service.ctx.link.isOnline(lock.id), 'the lock online on the restarted instance', WAIT_MS);
      for (const instance of instances) assert.equal((await execute(instance, admin, lock.id)).status, 200);

      // The lock goes offline: every instance knows, one recorded it.
      await closeSimulator();
      closeSimulator = async () => undefined;
      await eventually(() => instances.every((instance) => !instance.service.ctx.link.isOnline(lock.id)), 'the lock offline on every instance', WAIT_MS);
      for (const instance of instances) assert.equal((await execute(instance, admin, lock.id)).status, 503);
      await eventually(async () => (await presences('DEVICE_DISCONNECTED')) === 2, 'DEVICE_DISCONNECTED', WAIT_MS);
      assert.equal(await presences('DEVICE_CONNECTED'), 2);
    } finally {
      for (const stream of streams) stream.close();
      await closeSimulator();
      for (const instance of instances) await instance.close();
      await observer.endAsync(true);
      await broker.close();
    }
  });
});
