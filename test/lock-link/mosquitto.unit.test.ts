import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { AppError } from '../../src/errors/catalogue.js';
import type { LockLink } from '../../src/lock-link/client.js';
import { createLockLink, recordingHandlers } from '../helpers/mqtt.js';
import { eventually } from '../helpers/wait.js';
import { mosquittoInstalled, startMosquitto, type Mosquitto } from '../helpers/mosquitto.js';
import { connectTestLock } from '../helpers/test-lock.js';

const secret = (): string => randomBytes(18).toString('base64url');

describe('lock link through Mosquitto with the documented ACL', { skip: mosquittoInstalled ? false : 'mosquitto is not installed' }, () => {
  const service = { username: 'latchkey-service', password: secret() };
  const lockA = { id: randomUUID(), secret: secret() };
  const lockB = { id: randomUUID(), secret: secret() };
  const lockC = { id: randomUUID(), secret: secret() };
  let mosquitto: Mosquitto;
  let link: LockLink;
  const recorder = recordingHandlers();

  before(async () => {
    const locks = [lockA, lockB, lockC].map((lock) => ({ username: lock.id, password: lock.secret }));
    mosquitto = await startMosquitto([service, ...locks], service.username);
    link = await createLockLink({ broker: mosquitto.url, ...service, replyTimeoutMs: 5000, logger: pino({ level: 'silent' }), handlers: recorder.handlers });
  });
  after(async () => { await link?.close(); await mosquitto?.close(); });

  it('refuses a lock with a wrong password', async () => {
    await assert.rejects(connectTestLock({ url: mosquitto.url, id: lockA.id, secret: 'wrong' }), /Not authorized|Bad username/);
  });

  it('tracks presence, including the will after a power cut', async () => {
    const lock = await connectTestLock({ url: mosquitto.url, ...lockA });
    await eventually(() => link.isOnline(lockA.id));
    await lock.powerCut();
    await recorder.until((seen) => seen.presence.some((p) => p.lockId === lockA.id && !p.online));
    assert.equal(link.isOnline(lockA.id), false);
  });

  it('delivers a command and its reply', async () => {
    const lock = await connectTestLock({ url: mosquitto.url, ...lockA });
    await eventually(() => link.isOnline(lockA.id));
    const result = await link.sendCommand(lockA.id, 'a.b.c', { type: 'MUTATE_LOCK', locked: false });
    assert.equal(result.state?.locked, false);
    assert.equal(lock.commands[0]?.token, 'a.b.c');
    await lock.close();
  });

  it('works the same with the service on MQTT 5', async () => {
    const v5 = await createLockLink({ broker: mosquitto.url, ...service, protocolVersion: 5, replyTimeoutMs: 5000, logger: pino({ level: 'silent' }), handlers: recordingHandlers().handlers });
    const lock = await connectTestLock({ url: mosquitto.url, ...lockC });
    await eventually(() => v5.isOnline(lockC.id));
    assert.equal((await v5.sendCommand(lockC.id, 'a.b.c', { type: 'MUTATE_LOCK', locked: false })).state?.locked, false);
    await lock.close();
    await v5.close();
  });

  it('drops what a lock publishes under another lock\'s prefix', async () => {
    const lock = await connectTestLock({ url: mosquitto.url, ...lockA });
    await eventually(() => link.isOnline(lockA.id));
    lock.client.publish(`locks/${lockB.id}/online`, '{"online":true}', { qos: 1, retain: true });
    lock.client.publish(`locks/${lockB.id}/state`, JSON.stringify({ locked: false, ts: 1 }), { qos: 1, retain: true });
    // Mosquitto drops refused publishes silently; a later publish of the same client on its own
    // topic arrives after them, so once it is seen the forged ones would have been too.
    await lock.client.publishAsync(`locks/${lockA.id}/event`, JSON.stringify({ type: 'DOOR_OPEN', ts: 2 }), { qos: 1 });
    await recorder.until((seen) => seen.events.some((e) => e.lockId === lockA.id));
    assert.equal(recorder.seen.presence.some((p) => p.lockId === lockB.id), false);
    assert.equal(recorder.seen.states.some((s) => s.lockId === lockB.id), false);
    await assert.rejects(link.sendCommand(lockB.id, 't', { type: 'MUTATE_LOCK', locked: false }), (err: unknown) => err instanceof AppError && err.status === 503);
    await lock.close();
  });
});
