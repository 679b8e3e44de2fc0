import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideLogin, mayPublish, mayRetain, maySubscribe } from '../../src/device-protocol/broker-policy.js';
import { decodeConfig, decodeReply, decodeState, MAX_PAYLOAD_BYTES, replyState, safeReason } from '../../src/device-protocol/payloads.js';
import { isValidLockId, parseLockTopic } from '../../src/device-protocol/topics.js';
import { ReplayMemory } from '../../src/lock-edge/replay-memory.js';

const LOCK = '0198f3a0-5d2c-7b1e-9c44-2f6a1e0b7d55';

describe('topics', () => {
  it('parses prefix/lock/kind, prefixes with slashes included', () => {
    assert.deepEqual(parseLockTopic('locks', `locks/${LOCK}/state`), { lockId: LOCK, kind: 'state' });
    assert.deepEqual(parseLockTopic('acme/locks', `acme/locks/${LOCK}/reply`), { lockId: LOCK, kind: 'reply' });
  });

  it('rejects other prefixes, extra levels, unknown kinds and unsafe ids', () => {
    assert.equal(parseLockTopic('locks', `other/${LOCK}/state`), null);
    assert.equal(parseLockTopic('locks', `locks/${LOCK}/state/extra`), null);
    // Protocol 1.6: a reply routed to one instance, and nothing else one level down.
    assert.deepEqual(parseLockTopic('locks', `locks/${LOCK}/reply/inst_1-a.b`), { lockId: LOCK, kind: 'reply', route: 'inst_1-a.b' });
    assert.equal(parseLockTopic('locks', `locks/${LOCK}/reply/+`), null);
    assert.equal(parseLockTopic('locks', `locks/${LOCK}/reply/a/b`), null);
    assert.equal(parseLockTopic('locks', `locks/${LOCK}/secrets`), null);
    assert.equal(parseLockTopic('locks', 'locks/+/state'), null);
    for (const id of ['', 'a/b', '+', '#', '$SYS', 'x'.repeat(129), 'a b']) assert.equal(isValidLockId(id), false, id);
    assert.equal(isValidLockId(LOCK), true);
  });
});

describe('broker policy', () => {
  const service = { username: 'svc', password: 'service-password' };
  const devices = async (id: string, secret: string | null) => id === LOCK && secret === 'device-secret';

  it('logs in locks by id and secret, and the service by its credentials', async () => {
    assert.deepEqual(await decideLogin(LOCK, LOCK, Buffer.from('device-secret'), service, devices), { ok: true, identity: { kind: 'lock', lockId: LOCK } });
    assert.deepEqual(await decideLogin('any', 'svc', Buffer.from('service-password'), service, devices), { ok: true, identity: { kind: 'service' } });
    assert.deepEqual(await decideLogin(LOCK, LOCK, Buffer.from('wrong'), service, devices), { ok: false, reason: 'bad_credentials' });
    assert.deepEqual(await decideLogin('other', LOCK, Buffer.from('device-secret'), service, devices), { ok: false, reason: 'identifier_rejected' });
    assert.deepEqual(await decideLogin('svc', 'svc', Buffer.from('wrong'), service, devices), { ok: false, reason: 'bad_credentials' });
    assert.deepEqual(await decideLogin(LOCK, undefined, undefined, service, devices), { ok: false, reason: 'bad_credentials' });
  });

  it('has no service login without service credentials (the embedded broker: the service uses its API)', async () => {
    for (const username of ['svc', '', 'latchkey-service-x']) {
      assert.equal((await decideLogin(username, username, Buffer.from('service-password'), null, devices)).ok, false, username);
    }
    assert.deepEqual(await decideLogin(LOCK, LOCK, Buffer.from('device-secret'), null, devices), { ok: true, identity: { kind: 'lock', lockId: LOCK } });
  });

  it('refuses another spelling of a lock id (one lock, one session)', async () => {
    assert.deepEqual(await decideLogin(LOCK.toUpperCase(), LOCK.toUpperCase(), Buffer.from('device-secret'), service, async () => true), { ok: false, reason: 'bad_credentials' });
  });

  it('lets a lock retain its presence and state, never an event or a reply', () => {
    const lock = { kind: 'lock', lockId: LOCK } as const;
    assert.equal(mayRetain(lock, `locks/${LOCK}/online`, 'locks'), true);
    assert.equal(mayRetain(lock, `locks/${LOCK}/state`, 'locks'), true);
    assert.equal(mayRetain(lock, `locks/${LOCK}/event`, 'locks'), false);
    assert.equal(mayRetain(lock, `locks/${LOCK}/reply`, 'locks'), false);
    assert.equal(mayRetain({ kind: 'service' }, `locks/${LOCK}/config`, 'locks'), true);
  });

  it('never asks the device store about a malformed id', async () => {
    let asked = false;
    const spy = async () => { asked = true; return true; };
    assert.equal((await decideLogin('a/#', 'a/#', Buffer.from('x'), service, spy)).ok, false);
    assert.equal(asked, false);
  });

  it('confines a lock to its own topics', () => {
    const lock = { kind: 'lock', lockId: LOCK } as const;
    for (const kind of ['online', 'state', 'event', 'reply', 'operation']) assert.equal(mayPublish(lock, `locks/${LOCK}/${kind}`, 'locks'), true, kind);
    assert.equal(mayPublish(lock, `locks/${LOCK}/command`, 'locks'), false);
    assert.equal(mayPublish(lock, `locks/${LOCK}/config`, 'locks'), false);
    assert.equal(mayPublish(lock, `locks/${LOCK}/reply/instance-1`, 'locks'), true);
    assert.equal(mayPublish(lock, `locks/${LOCK}/reply/a/b`, 'locks'), false);
    assert.equal(mayPublish(lock, `locks/${LOCK}/reply/#`, 'locks'), false);
    assert.equal(mayPublish(lock, `locks/${LOCK}/state/instance-1`, 'locks'), false);
    assert.equal(mayPublish(lock, 'locks/other/reply/instance-1', 'locks'), false);
    assert.equal(mayPublish(lock, 'locks/other/state', 'locks'), false);
    assert.equal(mayPublish(lock, `other/${LOCK}/state`, 'locks'), false);
    assert.equal(maySubscribe(lock, `locks/${LOCK}/config`, 'locks'), true);
    assert.equal(maySubscribe(lock, `locks/${LOCK}/+`, 'locks'), false);
    assert.equal(maySubscribe(lock, `locks/${LOCK}/reply`, 'locks'), false);
    assert.equal(mayPublish(undefined, `locks/${LOCK}/state`, 'locks'), false);
    assert.equal(mayPublish({ kind: 'service' }, `locks/${LOCK}/command`, 'locks'), true);
    assert.equal(mayPublish({ kind: 'service' }, '$SYS/x', 'locks'), false);
  });
});

describe('payload decoders', () => {
  const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

  it('accepts valid payloads and ignores unknown fields', () => {
    assert.deepEqual(decodeState(bytes({ locked: true, ts: 1, extra: 'x' })), { ok: true, value: { locked: true, ts: 1, extra: 'x' } });
    assert.equal(decodeReply(bytes({ id: 'c', ok: false, error: 'no' })).ok, true);
    assert.equal(decodeConfig(bytes({ version: 1, unlockDuration: 5, unlockBetween: null, users: [] })).ok, true);
  });

  it('refuses non-JSON, bad shapes and oversized payloads with a reason', () => {
    assert.deepEqual(decodeState(Buffer.from('{')), { ok: false, reason: 'payload is not JSON' });
    const bad = decodeState(bytes({ locked: 'yes', ts: 1 }));
    assert.equal(bad.ok, false);
    // A malformed state does not void the reply (its outcome stands); replyState sets it aside.
    const oddState = decodeReply(bytes({ id: 'c', ok: true, state: { locked: false } }));
    assert.equal(oddState.ok, true);
    assert.match(replyState(oddState.ok && oddState.value.ok ? oddState.value.state : undefined).invalid ?? '', /ts/);
    assert.deepEqual(replyState({ locked: false, ts: 1 }), { state: { locked: false, ts: 1 } });
    assert.deepEqual(replyState(undefined), {});
    assert.equal(decodeReply(bytes({ id: 'c', ok: false })).ok, false);
    assert.equal(decodeConfig(bytes({ version: 1.5, unlockDuration: 5, unlockBetween: null, users: [] })).ok, false);
    assert.deepEqual(decodeState(Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0x20)), { ok: false, reason: 'payload too large' });
  });

  it('makes a device\'s reason printable and bounded', () => {
    assert.equal(safeReason('jti\u0000 reused\n'), 'jti  reused');
    assert.equal(safeReason('x'.repeat(500)).length, 201);
    assert.equal(safeReason('\u0007'), 'unspecified');
  });
});

describe('replay memory', () => {
  it('refuses a key until it expires, and refuses when full of live keys', () => {
    const memory = new ReplayMemory(2);
    assert.equal(memory.remember('a', 100, 10), 'new');
    assert.equal(memory.remember('a', 100, 50), 'replayed');
    assert.equal(memory.remember('b', 20, 10), 'new');
    assert.equal(memory.remember('c', 100, 10), 'full');
    assert.equal(memory.remember('c', 100, 30), 'new'); // b expired and was forgotten
    assert.equal(memory.remember('a', 200, 100), 'new'); // a expired at 100
  });
});

describe('protocol 1.3: operation reports and LAN addresses', () => {
  it('decodes an operation report, and refuses an unknown source, a bad slot or a token where none fits', async () => {
    const { decodeOperationReport, decodeOnline } = await import('../../src/device-protocol/payloads.js');
    const report = { id: 'r1', source: 'keypad', locked: false, slot: 3, ts: 1767225601.5 };
    assert.deepEqual(decodeOperationReport(Buffer.from(JSON.stringify(report))), { ok: true, value: report });
    assert.equal(decodeOperationReport(Buffer.from(JSON.stringify({ ...report, source: 'rf' }))).ok, false);
    assert.equal(decodeOperationReport(Buffer.from(JSON.stringify({ ...report, slot: -1 }))).ok, false);
    assert.equal(decodeOperationReport(Buffer.from(JSON.stringify({ ...report, token: 'x'.repeat(16 * 1024 + 1) }))).ok, false);
    assert.equal(decodeOnline(Buffer.from('{"online":true,"directAccessEndpoints":["http://192.0.2.7:27707/device/execute"]}')).ok, true);
    assert.equal(decodeOnline(Buffer.from('{"online":true,"directAccessEndpoints":["file:///etc/passwd"]}')).ok, false);
    assert.equal(decodeOnline(Buffer.from(JSON.stringify({ online: true, directAccessEndpoints: Array(5).fill('http://a/b') }))).ok, false);
  });

  it('lets a lock publish its operation reports, never retained', () => {
    const lock = { kind: 'lock', lockId: LOCK } as const;
    assert.equal(mayPublish(lock, `locks/${LOCK}/operation`, 'locks'), true);
    assert.equal(mayRetain(lock, `locks/${LOCK}/operation`, 'locks'), false);
    assert.equal(mayPublish(lock, 'locks/00000000-0000-4000-8000-000000000000/operation', 'locks'), false);
  });
});
