import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connectAsync } from 'mqtt';
import type { LocalBrokerClient } from '../../src/mqtt/broker.js';
import { startTestBroker, type TestBroker } from '../helpers/mqtt.js';
import { eventually } from '../helpers/wait.js';

function publish(local: LocalBrokerClient, topic: string, payload: string, retain = false): Promise<void> {
  return new Promise((resolve, reject) => local.publish(topic, Buffer.from(payload), { qos: 1, retain }, (err) => (err ? reject(err) : resolve())));
}

describe('the embedded broker\'s local publish and subscribe', () => {
  let broker: TestBroker;
  before(async () => { broker = await startTestBroker(); });
  after(async () => { await broker.close(); });

  it('hears the retained messages, then live ones, until it unsubscribes', async () => {
    const { local } = broker.broker;
    await publish(local, 'locks/a/state', 'retained', true);
    const heard: string[] = [];
    const unsubscribe = await local.subscribe(['locks/+/state'], (topic, payload) => heard.push(`${topic} ${payload.toString()}`));
    await publish(local, 'locks/b/state', 'live');
    await eventually(() => heard.length === 2);
    assert.deepEqual(heard.sort(), ['locks/a/state retained', 'locks/b/state live']);
    await unsubscribe();
    // The broker calls a publish back once every subscriber has been handed the message.
    await publish(local, 'locks/c/state', 'after');
    assert.equal(heard.length, 2);
  });

  it('delivers to a network client at QoS 1, byte for byte, and keeps a retained one for later clients', async () => {
    const { local } = broker.broker;
    const lock = broker.addLock();
    const client = await connectAsync(broker.url, { clientId: lock.id, username: lock.id, password: lock.secret, protocolVersion: 4, reconnectPeriod: 0 }, false);
    const received: Array<{ topic: string; payload: string; qos: number }> = [];
    client.on('message', (topic, payload, packet) => received.push({ topic, payload: payload.toString(), qos: packet.qos }));
    await client.subscribeAsync(`locks/${lock.id}/command`, { qos: 1 });
    await publish(local, `locks/${lock.id}/command`, '{"id":"x","token":"é"}');
    await publish(local, `locks/${lock.id}/config`, '{"version":1}', true);
    await eventually(() => received.length === 1);
    assert.deepEqual(received, [{ topic: `locks/${lock.id}/command`, payload: '{"id":"x","token":"é"}', qos: 1 }]);
    await client.subscribeAsync(`locks/${lock.id}/config`, { qos: 1 });
    await eventually(() => received.length === 2);
    assert.equal(received[1]?.payload, '{"version":1}');
    await client.endAsync();
  });

  it('keeps routing when a subscriber throws', async () => {
    const { local } = broker.broker;
    const heard: string[] = [];
    const failing = await local.subscribe(['locks/+/event'], () => { throw new Error('boom'); });
    const working = await local.subscribe(['locks/+/event'], (topic) => heard.push(topic));
    await publish(local, 'locks/d/event', '{}');
    await publish(local, 'locks/e/event', '{}');
    await eventually(() => heard.length === 2);
    await failing();
    await working();
  });
});
