import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { connectAsync } from 'mqtt';
import { LOCK_PACKET_LIMITS } from '../../src/device-protocol/broker-policy.js';
import { PacketSizeMeter } from '../../src/mqtt/packet-size-guard.js';
import { startTestBroker, type TestBroker } from '../helpers/mqtt.js';

/** Feeds chunks to a meter: how many it accepted before refusing one (all of them when none was refused). */
function accepted(chunks: Buffer[], limits = { firstLimit: 10, limit: 100 }): number {
  const meter = new PacketSizeMeter(limits);
  const refused = chunks.findIndex((chunk) => !meter.accept(chunk));
  return refused === -1 ? chunks.length : refused;
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

describe('PacketSizeMeter', () => {
  it('accepts packets within the limits, however the bytes are split', () => {
    const bytes = Buffer.concat([packet(0x10, 10), packet(0x30, 100), packet(0xc0, 0), packet(0x30, 3)]);
    assert.equal(accepted([bytes]), 1);
    const oneByOne = [...bytes].map((b) => Buffer.from([b]));
    assert.equal(accepted(oneByOne), oneByOne.length);
  });

  it('refuses at the header of a first packet over the first limit, and of a later one over the limit', () => {
    assert.equal(accepted([packet(0x10, 11)]), 0);
    assert.equal(accepted([packet(0x10, 5), packet(0x30, 101).subarray(0, 4)]), 1);
    assert.equal(accepted([packet(0x10, 5), packet(0x30, 100)]), 2);
  });

  it('refuses a remaining length that never ends (malformed)', () => {
    assert.equal(accepted([Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x01])], { firstLimit: 1e9, limit: 1e9 }), 0);
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
