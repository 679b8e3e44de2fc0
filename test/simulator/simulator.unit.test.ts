import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { connectAsync } from 'mqtt';
import { SignJWT } from 'jose';
import pino from 'pino';
import { createCertificateAuthority, issueLeafCertificate } from '../../src/crypto/pki.js';
import { AppError } from '../../src/errors/catalogue.js';
import type { LockLink } from '../../src/lock-link/client.js';
import type { LockConfig } from '../../src/device-protocol/payloads.js';
import { runSimulator, type RunningSimulator } from '../../src/simulator/run-simulator.js';
import { createLockLink, recordingHandlers, startTestBroker, type TestBroker } from '../helpers/mqtt.js';
import { eventually } from '../helpers/wait.js';

const nowSeconds = (): number => Date.now() / 1000;

interface Signer { userId: string; privateKey: KeyObject; publicKeyBase64: string }

function rsaSigner(): Signer {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { userId: randomUUID(), privateKey, publicKeyBase64: publicKey.export({ format: 'der', type: 'spki' }).toString('base64') };
}

function unlockToken(signer: Signer, lockId: string, operation: object, header: Record<string, unknown> = {}): Promise<string> {
  const iat = Math.floor(nowSeconds());
  return new SignJWT({ operation })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...header })
    .setIssuer(signer.userId).setSubject(lockId).setIssuedAt(iat).setNotBefore(iat).setExpirationTime(iat + 30).setJti(randomUUID())
    .sign(signer.privateKey);
}

function configFor(users: Array<{ userId: string; publicKey: string | null }>, extra: Partial<LockConfig> = {}): LockConfig {
  return { version: 1, unlockDuration: 1, unlockBetween: null, users: users.map((u) => ({ ...u, role: 'USER', start: null, end: null })), ...extra };
}

interface SimulatorExtras { trustedRoot?: string; now?: () => number; replyDelayMs?: number; replayFile?: string; credentials?: { id: string; secret: string } }

/** A simulator run in-process, its stdin, and its JSON log lines. */
async function startSimulator(broker: TestBroker, { credentials = broker.addLock(), ...extra }: SimulatorExtras = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const log: Array<Record<string, unknown>> = [];
  let partial = '';
  stdout.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) log.push(JSON.parse(line) as Record<string, unknown>);
  });
  const simulator: RunningSimulator = await runSimulator({ ...credentials, mqttUrl: broker.url, replyDelayMs: 0, stdin, stdout, ...extra });
  return { id: credentials.id, credentials, stdin, log, simulator };
}

const refusedWith = (reason: RegExp) => (err: unknown) => err instanceof AppError && err.status === 409 && reason.test(err.message);

describe('lock simulator', () => {
  let broker: TestBroker;
  let link: LockLink;
  const recorder = recordingHandlers();
  const stateOf = (lockId: string) => recorder.seen.states.filter((s) => s.lockId === lockId).at(-1)?.state;

  before(async () => {
    broker = await startTestBroker();
    link = await createLockLink({ broker: broker.url, ...broker.service, replyTimeoutMs: 5000, logger: pino({ level: 'silent' }), handlers: recorder.handlers });
  });
  after(async () => { await link.close(); await broker.close(); });

  it('unlocks for a valid RS256 token, relocks after the duration, and refuses a replay', async () => {
    const signer = rsaSigner();
    const { id, simulator } = await startSimulator(broker);
    await link.publishConfig(id, configFor([{ userId: signer.userId, publicKey: signer.publicKeyBase64 }]));
    await eventually(() => simulator.lock.configVersion === 1 && link.isOnline(id));

    const operation = { type: 'MUTATE_LOCK', locked: false, duration: 1 };
    const token = await unlockToken(signer, id, operation);
    const result = await link.sendCommand(id, token, operation);
    assert.equal(result.state?.locked, false);
    await recorder.until(() => stateOf(id)?.locked === false);
    await recorder.until(() => stateOf(id)?.locked === true); // auto-relock after 1 s

    await assert.rejects(link.sendCommand(id, token, operation), refusedWith(/^the lock refused the operation: replayed/));
    await simulator.close();
  });

  it('says what it is (protocol 1.2): kind simulator, with a door sensor', async () => {
    const { id, simulator } = await startSimulator(broker);
    await recorder.until((seen) => seen.devices.some((d) => d.lockId === id));
    assert.deepEqual(recorder.seen.devices.find((d) => d.lockId === id)?.device, { kind: 'simulator', capabilities: ['keypad', 'doorSensor'] });
    await simulator.close();
  });

  it('refuses a replayed token after a restart, with its replay file', async () => {
    const signer = rsaSigner();
    const replayFile = join(await mkdtemp(join(tmpdir(), 'latchkey-replay-')), 'replays');
    const first = await startSimulator(broker, { replayFile });
    await link.publishConfig(first.id, configFor([{ userId: signer.userId, publicKey: signer.publicKeyBase64 }]));
    await eventually(() => first.simulator.lock.configVersion === 1 && link.isOnline(first.id));
    const operation = { type: 'MUTATE_LOCK', locked: false, duration: 1 };
    const token = await unlockToken(signer, first.id, operation);
    assert.equal((await link.sendCommand(first.id, token, operation)).state?.locked, false);
    await first.simulator.close();

    const again = await startSimulator(broker, { replayFile, credentials: first.credentials });
    await eventually(() => again.simulator.lock.configVersion === 1 && link.isOnline(first.id));
    await assert.rejects(link.sendCommand(first.id, token, operation), refusedWith(/^the lock refused the operation: replayed/));
    await again.simulator.close();
  });

  it('abandons a command past its deadline (protocol 1.2): the request answers 504 and the bolt never moves', async () => {
    const signer = rsaSigner();
    const hasty = await createLockLink({ broker: broker.url, ...broker.service, replyTimeoutMs: 200, logger: pino({ level: 'silent' }), handlers: recordingHandlers().handlers });
    // The lock takes longer to get to the command than the service waits for its reply.
    const { id, simulator, log } = await startSimulator(broker, { replyDelayMs: 600 });
    await link.publishConfig(id, configFor([{ userId: signer.userId, publicKey: signer.publicKeyBase64 }]));
    await eventually(() => simulator.lock.configVersion === 1 && hasty.isOnline(id));
    const operation = { type: 'MUTATE_LOCK', locked: false, duration: 1 };
    await assert.rejects(hasty.sendCommand(id, await unlockToken(signer, id, operation), operation), (err: unknown) => err instanceof AppError && err.status === 504);
    await eventually(() => log.some((line) => line.action === 'reply' && line.ok === false));
    assert.match(String(log.find((line) => line.action === 'reply')?.error), /^deadline_passed/);
    assert.equal(simulator.lock.state.locked, true);
    assert.ok(!log.some((line) => line.action === 'state' && line.locked === false));
    await hasty.close();
    await simulator.close();
  });

  it('refuses a tampered token published straight to the broker', async () => {
    const signer = rsaSigner();
    const { id, simulator, log } = await startSimulator(broker);
    await link.publishConfig(id, configFor([{ userId: signer.userId, publicKey: signer.publicKeyBase64 }]));
    await eventually(() => simulator.lock.configVersion === 1);

    const operation = { type: 'MUTATE_LOCK', locked: false };
    const [header, payload, signature] = (await unlockToken(signer, id, { ...operation, duration: 1 })).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, operation: { ...operation, duration: 3600 } })).toString('base64url');

    // An attacker with broker access (here: the service's credentials) but no user key.
    const attacker = await connectAsync(broker.url, { ...broker.service, protocolVersion: 4, reconnectPeriod: 0 }, false);
    const replies: Array<Record<string, unknown>> = [];
    attacker.on('message', (_topic, body) => replies.push(JSON.parse(body.toString()) as Record<string, unknown>));
    await attacker.subscribeAsync(`locks/${id}/reply`, { qos: 1 });
    await attacker.publishAsync(`locks/${id}/command`, JSON.stringify({ id: 'forged-1', token: `${header}.${forged}.${signature}`, operation: { ...operation, duration: 3600 } }), { qos: 1 });
    await eventually(() => replies.length === 1);
    assert.equal(replies[0]?.id, 'forged-1');
    assert.equal(replies[0]?.ok, false);
    assert.match(String(replies[0]?.error), /^bad_signature/);
    assert.equal(simulator.lock.state.locked, true);
    assert.ok(log.some((line) => line.action === 'command_refused' && line.id === 'forged-1'));
    await attacker.endAsync();
    await simulator.close();
  });

  it('refuses a signer who is not enrolled, and a token for another lock', async () => {
    const enrolled = rsaSigner();
    const stranger = rsaSigner();
    const { id, simulator } = await startSimulator(broker);
    await link.publishConfig(id, configFor([{ userId: enrolled.userId, publicKey: enrolled.publicKeyBase64 }]));
    await eventually(() => simulator.lock.configVersion === 1 && link.isOnline(id));
    const operation = { type: 'MUTATE_LOCK', locked: false };
    await assert.rejects(link.sendCommand(id, await unlockToken(stranger, id, operation), operation), refusedWith(/not_enrolled/));
    await assert.rejects(link.sendCommand(id, await unlockToken(enrolled, randomUUID(), operation), operation), refusedWith(/bad_request: sub/));
    assert.equal(simulator.lock.state.locked, true);
    await simulator.close();
  });

  it('accepts an EdDSA token whose x5c chains to the trusted root', async () => {
    const ca = await createCertificateAuthority({ name: 'Test', now: nowSeconds() });
    const userId = randomUUID();
    const keys = generateKeyPairSync('ed25519');
    const x5c = await issueLeafCertificate(ca, { userId, publicKey: keys.publicKey, now: nowSeconds() });
    const { id, simulator } = await startSimulator(broker, { trustedRoot: ca.root.der.toString('base64') });
    await link.publishConfig(id, configFor([{ userId, publicKey: null }]));
    await eventually(() => simulator.lock.configVersion === 1 && link.isOnline(id));

    const operation = { type: 'MUTATE_LOCK', locked: false, duration: 1 };
    const iat = Math.floor(nowSeconds());
    const token = await new SignJWT({ operation }).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', x5c })
      .setIssuer(userId).setSubject(id).setIssuedAt(iat).setNotBefore(iat).setExpirationTime(iat + 30).setJti(randomUUID())
      .sign(keys.privateKey);
    assert.equal((await link.sendCommand(id, token, operation)).state?.locked, false);

    const lock = { type: 'MUTATE_LOCK', locked: true };
    const lockToken = await new SignJWT({ operation: lock }).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', x5c: x5c.slice(0, 2) })
      .setIssuer(userId).setSubject(id).setIssuedAt(iat).setExpirationTime(iat + 30).setJti(randomUUID())
      .sign(keys.privateKey);
    assert.equal((await link.sendCommand(id, lockToken, lock)).state?.locked, true);
    await simulator.close();
  });

  it('holds the door unlocked inside the unlock-between window and refuses to lock it', async () => {
    const signer = rsaSigner();
    const { id, simulator } = await startSimulator(broker);
    const everyDay = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
    // 00:00–00:00 is the whole of each named day: always inside.
    const window = { start: '00:00', end: '00:00', timezone: 'UTC', days: [...everyDay] };
    await link.publishConfig(id, configFor([{ userId: signer.userId, publicKey: signer.publicKeyBase64 }], { unlockBetween: window }));
    await recorder.until(() => stateOf(id)?.locked === false);
    const operation = { type: 'MUTATE_LOCK', locked: true };
    await assert.rejects(link.sendCommand(id, await unlockToken(signer, id, operation), operation), refusedWith(/unlock_window_active/));

    await link.publishConfig(id, configFor([{ userId: signer.userId, publicKey: signer.publicKeyBase64 }], { version: 2 }));
    await recorder.until(() => stateOf(id)?.locked === true);
    await simulator.close();
  });

  it('reports the door from standard input and goes offline and online again', async () => {
    const { id, stdin, simulator, log } = await startSimulator(broker);
    await eventually(() => link.isOnline(id));
    stdin.write('open\n');
    await recorder.until((seen) => seen.events.some((e) => e.lockId === id && e.event.type === 'DOOR_OPEN'));
    await recorder.until(() => stateOf(id)?.doorOpen === true);
    stdin.write('close\n');
    await recorder.until((seen) => seen.events.some((e) => e.lockId === id && e.event.type === 'DOOR_CLOSE'));

    stdin.write('offline\n');
    await recorder.until((seen) => seen.presence.some((p) => p.lockId === id && !p.online)); // the will
    assert.equal(link.isOnline(id), false);
    stdin.write('online\n');
    await eventually(() => link.isOnline(id));
    stdin.write('bogus\n');
    await eventually(() => log.some((line) => line.action === 'unknown_input'));
    assert.deepEqual(recorder.seen.presence.filter((p) => p.lockId === id).map((p) => p.online), [true, false, true]);
    await simulator.close();
    await recorder.until((seen) => seen.presence.filter((p) => p.lockId === id).length === 4);
    assert.equal(link.isOnline(id), false);
  });
});

describe('lock simulator shutdown', () => {
  it('closes even when its broker has gone with a message still unacknowledged', { timeout: 20_000 }, async () => {
    const broker = await startTestBroker();
    const { stdin, log, simulator } = await startSimulator(broker);
    await broker.close();
    stdin.write('open\n'); // a QoS 1 event the broker will never acknowledge
    await eventually(() => log.some((line) => line.action === 'disconnected'));
    await simulator.close();
    assert.ok(log.some((line) => line.action === 'stopped'));
  });
});
