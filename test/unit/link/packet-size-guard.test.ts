import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { connectAsync } from 'mqtt';
import { LOCK_PACKET_LIMITS } from '../../../src/link/broker.js';
import { PacketSizeGuard } from '../../../src/link/packet-size-guard.js';
import { startTestBroker, type TestBroker } from './helpers.js';

/** Runs chunks through a guard; the bytes it let through, or the error that stopped it. */
async function pass(chunks: Buffer[], limits = { firstLimit: 10, limit: 100 }): Promise<{ out: Buffer; error?: Error }> {
  const guard = new PacketSizeGuard(limits);
  const out: Buffer[] = [];
  guard.on('data', (chunk: Buffer) => out.push(chunk));
  return new Promise((resolve) => {
    guard.once('error', (error) => resolve({ out: Buffer.concat(out), error }));
    guard.once('end', () => resolve({ out: Buffer.concat(out) }));
    for (const chunk of chunks) guard.write(chunk);
    guard.end();
  });
}

/** A packet: type byte, remaining length (MQTT variable-length integer), body. */
function packet(type: number, bodyLength: number): Buffer {
  const length: number[] = [];
  let rest = bodyLength;
  do {
    let byte = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest > 0) byte |= 0x80;
    length.push(byte);
  } while (rest > 0);
  return Buffer.concat([Buffer.from([type, ...length]), Buffer.alloc(bodyLength, 7)]);
}

describe('PacketSizeGuard', () => {
  it('passes packets within the caps unchanged, however the bytes are split', async () => {
    const bytes = Buffer.concat([packet(0x10, 10), packet(0x30, 100), packet(0xc0, 0), packet(0x30, 3)]);
    assert.deepEqual((await pass([bytes])).out, bytes);
    const oneByOne = [...bytes].map((b) => Buffer.from([b]));
    const split = await pass(oneByOne);
    assert.equal(split.error, undefined);
    assert.deepEqual(split.out, bytes);
  });

  it('stops at the header of a first packet over the first cap, and of a later one over the cap', async () => {
    assert.match(String((await pass([packet(0x10, 11)])).error), /over 10 bytes/);
    const later = await pass([packet(0x10, 5), packet(0x30, 101).subarray(0, 4)]);
    assert.match(String(later.error), /over 100 bytes/);
    assert.equal(later.out.length, 7, 'only the first packet went through');
  });

  it('stops at a remaining length that never ends (malformed)', async () => {
    assert.ok((await pass([Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x01])], { firstLimit: 1e9, limit: 1e9 })).error);
  });
});

describe('embedded broker: packet sizes', () => {
  let broker: TestBroker;
  before(async () => { broker = await startTestBroker(); });
  after(() => broker.close());

  it('drops a connection at once when its first packet announces more than a CONNECT needs', async () => {
    const socket: Socket = connect(broker.broker.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('error', () => undefined);
    // CONNECT announcing 255 MB, then the start of it.
    socket.write(Buffer.from([0x10, 0xff, 0xff, 0xff, 0x7f]));
    socket.write(Buffer.alloc(64 * 1024));
    await closed;
  });

  it('lets a lock publish what locks publish, and drops one that sends more than the cap', async () => {
    const lock = broker.addLock();
    const client = await connectAsync(broker.url, { clientId: lock.id, username: lock.id, password: lock.secret, protocolVersion: 4, reconnectPeriod: 0 }, false);
    await client.publishAsync(`locks/${lock.id}/state`, JSON.stringify({ locked: true, ts: 1 }), { qos: 1 });
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.publish(`locks/${lock.id}/state`, Buffer.alloc(LOCK_PACKET_LIMITS.limit + 1, 0x20), { qos: 0 });
    await closed;
    await client.endAsync(true);
  });
});
