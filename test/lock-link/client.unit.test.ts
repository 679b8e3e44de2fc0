import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { connectAsync } from 'mqtt';
import { AppError } from '../../src/errors/catalogue.js';
import { connectLockLink, type LockLink } from '../../src/lock-link/client.js';
import type { LockConfig } from '../../src/device-protocol/payloads.js';
import { capturingLogger, createLockLink, recordingHandlers, startTestBroker, type TestBroker } from '../helpers/mqtt.js';
import { eventually } from '../helpers/wait.js';
import { connectTestLock } from '../helpers/test-lock.js';

function config(version: number): LockConfig {
  return { version, unlockDuration: 5, unlockBetween: null, users: [{ userId: randomUUID(), publicKey: null, role: 'ADMIN', start: null, end: null }] };
}

function isAppError(status: number, error: string) {
  return (err: unknown) => err instanceof AppError && err.status === status && err.error === error;
}

/** The two transports of the link to the embedded broker: what production uses, and mqtt.js as to an external broker. */
const transports = [
  { name: 'through the broker\'s own API', connection: (broker: TestBroker) => ({ broker: broker.broker.local }), mqtt: false },
  { name: 'over TCP (mqtt.js)', connection: (broker: TestBroker) => ({ broker: broker.url, ...broker.service }), mqtt: true },
];

for (const transport of transports) describe(`lock link to the embedded broker ${transport.name}`, () => {
  let broker: TestBroker;
  let link: LockLink;
  /** Same broker, a short reply timeout: only for the 504 cases, so busy machines do not time out the others. */
  let hasty: LockLink;
  const recorder = recordingHandlers();
  const { logger, lines } = capturingLogger();

  before(async () => {
    broker = await startTestBroker();
    link = await createLockLink({ ...transport.connection(broker), replyTimeoutMs: 5000, logger, handlers: recorder.handlers });
    hasty = await createLockLink({ ...transport.connection(broker), replyTimeoutMs: 100, logger, handlers: recordingHandlers().handlers });
  });
  after(async () => { await hasty.close(); await link.close(); await broker.close(); });

  it('reports presence: online, then offline through the will after a power cut', async () => {
    const credentials = broker.addLock();
    assert.equal(link.isOnline(credentials.id), false);
    const lock = await connectTestLock({ url: broker.url, ...credentials });
    await recorder.until((seen) => seen.presence.some((p) => p.lockId === credentials.id && p.online));
    assert.equal(link.isOnline(credentials.id), true);
    await lock.powerCut();
    await recorder.until((seen) => seen.presence.some((p) => p.lockId === credentials.id && !p.online));
    assert.equal(link.isOnline(credentials.id), false);
    assert.deepEqual(recorder.seen.presence.filter((p) => p.lockId === credentials.id).map((p) => p.online), [true, false]);
  });

  it('hands state reports and door events to the handlers', async () => {
    const credentials = broker.addLock();
    const lock = await connectTestLock({ url: broker.url, ...credentials });
    await recorder.until((seen) => seen.states.some((s) => s.lockId === credentials.id));
    assert.equal(recorder.seen.states.find((s) => s.lockId === credentials.id)?.state.locked, true);
    await lock.client.publishAsync(`locks/${credentials.id}/event`, JSON.stringify({ type: 'DOOR_OPEN', ts: 1700000000.5 }), { qos: 1 });
    await recorder.until((seen) => seen.events.some((e) => e.lockId === credentials.id));
    assert.deepEqual(recorder.seen.events.find((e) => e.lockId === credentials.id)?.event, { type: 'DOOR_OPEN', ts: 1700000000.5 });
    await lock.close();
  });

  it('ignores malformed payloads and survives a handler that throws', async () => {
    const credentials = broker.addLock();
    const { logger: quiet, lines: quietLines } = capturingLogger();
    const calls: string[] = [];
    const throwing = await createLockLink({
      ...transport.connection(broker), replyTimeoutMs: 5000, logger: quiet,
      handlers: {
        onPresence: (lockId) => { calls.push(lockId); throw new Error('boom'); },
        onState: async (lockId) => { calls.push(lockId); throw new Error('async boom'); },
        onEvent: () => undefined,
      },
    });
    const lock = await connectTestLock({ url: broker.url, ...credentials });
    const event = `locks/${credentials.id}/event`;
    await lock.client.publishAsync(event, 'not json', { qos: 1 });
    await lock.client.publishAsync(event, JSON.stringify({ type: 'EXPLODE', ts: 1 }), { qos: 1 });
    await lock.client.publishAsync(`locks/${credentials.id}/reply`, JSON.stringify({ id: 'x' }), { qos: 1 });
    const ours = (): number => calls.filter((id) => id === credentials.id).length;
    await eventually(() => quietLines.filter((l) => l.msg === 'invalid lock message ignored' && l.lockId === credentials.id).length === 3 && ours() === 2);
    assert.equal(quietLines.filter((l) => l.msg === 'lock link handler failed' && l.lockId === credentials.id).length, 2);
    assert.equal(throwing.isOnline(credentials.id), true); // still connected and tracking
    await lock.close();
    await throwing.close();
  });

  it('sends a command and resolves with the state of the lock\'s reply', async () => {
    const credentials = broker.addLock();
    const lock = await connectTestLock({ url: broker.url, ...credentials });
    await eventually(() => link.isOnline(credentials.id));
    const result = await link.sendCommand(credentials.id, 'header.payload.signature', { type: 'MUTATE_LOCK', locked: false });
    assert.equal(result.state?.locked, false);
    assert.equal(lock.commands.length, 1);
    assert.equal(lock.commands[0]?.token, 'header.payload.signature');
    assert.deepEqual(lock.commands[0]?.operation, { type: 'MUTATE_LOCK', locked: false });
    await lock.close();
  });

  it('answers 503 at once for a lock that is not online', async () => {
    await assert.rejects(link.sendCommand(randomUUID(), 't', { type: 'MUTATE_LOCK', locked: false }), isAppError(503, 'lock_offline'));
  });

  it('answers 409 with the lock\'s reason when the lock refuses', async () => {
    const credentials = broker.addLock();
    const lock = await connectTestLock({ url: broker.url, ...credentials, behaviour: { kind: 'refuse', error: 'jti_reused\u0007' } });
    await eventually(() => link.isOnline(credentials.id));
    await assert.rejects(link.sendCommand(credentials.id, 't', { type: 'MUTATE_LOCK', locked: false }), (err: unknown) =>
      err instanceof AppError && err.status === 409 && err.message === 'the lock refused the operation: jti_reused');
    await lock.close();
  });

  it('answers 504 when the lock never replies, and drops a late reply', async () => {
    const credentials = broker.addLock();
    const lock = await connectTestLock({ url: broker.url, ...credentials, behaviour: { kind: 'silent' } });
    await eventually(() => hasty.isOnline(credentials.id) && link.isOnline(credentials.id));
    await assert.rejects(hasty.sendCommand(credentials.id, 't', { type: 'MUTATE_LOCK', locked: false }), isAppError(504, 'lock_timeout'));

    lock.behaviour = { kind: 'late', delayMs: 400 };
    await assert.rejects(hasty.sendCommand(credentials.id, 't', { type: 'MUTATE_LOCK', locked: false }), isAppError(504, 'lock_timeout'));
    await eventually(() => lines.some((l) => l.lockId === credentials.id && typeof l.msg === 'string' && l.msg.startsWith('lock reply for no pending command')));

    lock.behaviour = { kind: 'unlock' };
    assert.equal((await link.sendCommand(credentials.id, 't', { type: 'MUTATE_LOCK', locked: false })).state?.locked, false);
    await lock.close();
  });

  it('keeps the config retained and delivers the latest to a lock that reconnects', async () => {
    const credentials = broker.addLock();
    await link.publishConfig(credentials.id, config(1));
    const first = await connectTestLock({ url: broker.url, ...credentials });
    await eventually(() => first.configs.length === 1);
    assert.equal(JSON.parse(first.configs[0]!.toString()).version, 1);
    await link.publishConfig(credentials.id, config(2));
    await eventually(() => first.configs.length === 2);
    await first.powerCut();

    const second = await connectTestLock({ url: broker.url, ...credentials });
    await eventually(() => second.configs.length === 1);
    assert.equal(JSON.parse(second.configs[0]!.toString()).version, 2);
    await second.close();
  });

  it('rejects pending commands when it closes', async () => {
    const own = await createLockLink({ ...transport.connection(broker), replyTimeoutMs: 5000, logger, handlers: recordingHandlers().handlers });
    const credentials = broker.addLock();
    const lock = await connectTestLock({ url: broker.url, ...credentials, behaviour: { kind: 'silent' } });
    await eventually(() => own.isOnline(credentials.id));
    const outcome = assert.rejects(own.sendCommand(credentials.id, 't', { type: 'MUTATE_LOCK', locked: false }), isAppError(503, 'lock_offline'));
    await eventually(() => lock.commands.length === 1);
    await own.close();
    await outcome;
    assert.equal(own.isOnline(credentials.id), false);
    await lock.close();
  });

  it('hears the presence and state a lock retained before the link listened', async () => {
    const credentials = broker.addLock();
    const lock = await connectTestLock({ url: broker.url, ...credentials });
    await eventually(() => link.isOnline(credentials.id));
    const late = recordingHandlers();
    const own = await createLockLink({ ...transport.connection(broker), replyTimeoutMs: 5000, logger, handlers: late.handlers });
    await late.until((seen) => seen.presence.some((p) => p.lockId === credentials.id && p.online) && seen.states.some((s) => s.lockId === credentials.id));
    assert.equal(own.isOnline(credentials.id), true);
    assert.equal((await own.sendCommand(credentials.id, 't', { type: 'MUTATE_LOCK', locked: false })).state?.locked, false);
    await own.close();
    assert.equal(own.brokerStatus().connected, false);
    await lock.close();
  });

  it('refuses to start with credentials the broker rejects', { skip: transport.mqtt ? false : 'no login in-process' }, async () => {
    await assert.rejects(createLockLink({ broker: broker.url, username: broker.service.username, password: 'nope', replyTimeoutMs: 100, logger, handlers: recordingHandlers().handlers }));
    const anonymous = connectAsync(broker.url, { reconnectPeriod: 0 }, false);
    await assert.rejects(anonymous);
  });
});

describe('lock link with shared subscriptions on a broker without them', () => {
  it('refuses to start, naming MQTT_SHARED_SUBSCRIPTIONS=false, rather than hear nothing (aedes speaks MQTT 3.1.1 only)', async () => {
    const broker = await startTestBroker();
    try {
      await assert.rejects(
        connectLockLink({ broker: broker.url, ...broker.service, shared: { group: 'latchkey', replyTo: 'instance-1' }, replyTimeoutMs: 1000, logger: capturingLogger().logger }),
        /does not speak MQTT 5.*MQTT_SHARED_SUBSCRIPTIONS=false/,
      );
    } finally {
      await broker.close();
    }
  });
});
