import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { MqttClient } from 'mqtt';
import { reconnectWithBackoff } from '../../src/mqtt/connection.js';

/** Enough of a client for the back-off: its options and its events. */
function fakeClient(reconnectPeriod: number) {
  const client = new EventEmitter() as EventEmitter & { options: MqttClient['options'] };
  client.options = { reconnectPeriod };
  return client;
}

describe('reconnectWithBackoff', () => {
  it('waits twice as long after each lost connection, up to the cap, and starts over once connected', () => {
    const client = fakeClient(1000);
    reconnectWithBackoff(client as unknown as MqttClient, 1000, 8000, () => 0.5);
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      client.emit('close');
      waits.push(client.options.reconnectPeriod!);
    }
    assert.deepEqual(waits, [1000, 2000, 4000, 8000, 8000]);
    client.emit('connect');
    client.emit('close');
    assert.equal(client.options.reconnectPeriod, 1000);
  });

  it('spreads each wait by ±50 %', () => {
    const low = fakeClient(1000);
    reconnectWithBackoff(low as unknown as MqttClient, 1000, 60_000, () => 0);
    low.emit('close');
    assert.equal(low.options.reconnectPeriod, 500);
    const high = fakeClient(1000);
    reconnectWithBackoff(high as unknown as MqttClient, 1000, 60_000, () => 0.999);
    high.emit('close');
    assert.equal(high.options.reconnectPeriod, 1499);
  });

  it('leaves a client that is not to reconnect alone', () => {
    const client = fakeClient(0);
    reconnectWithBackoff(client as unknown as MqttClient);
    client.emit('close');
    assert.equal(client.options.reconnectPeriod, 0);
  });
});
