import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RetainedStore, topicMatches, type RetainedPacket, type RetainedPersistence } from '../../src/mqtt/retained-store.js';

describe('the embedded broker\'s retained messages', () => {
  it('matches topics as MQTT filters do', () => {
    assert.equal(topicMatches('locks/a/config', 'locks/a/config'), true);
    assert.equal(topicMatches('locks/a/config', 'locks/b/config'), false);
    assert.equal(topicMatches('locks/+/state', 'locks/a/state'), true);
    assert.equal(topicMatches('locks/+/state', 'locks/a/b/state'), false);
    assert.equal(topicMatches('locks/+', 'locks/a/state'), false);
    assert.equal(topicMatches('locks/#', 'locks'), true);
    assert.equal(topicMatches('locks/#', 'locks/a/state'), true);
    assert.equal(topicMatches('#', '$SYS/broker/uptime'), false);
    assert.equal(topicMatches('+/broker/uptime', '$SYS/broker/uptime'), false);
    assert.equal(topicMatches('$SYS/#', '$SYS/broker/uptime'), true);
  });

  it('answers a filter with what is retained under it, and forgets a topic given an empty payload', async () => {
    const store = new RetainedStore();
    const unused = (): never => { throw new Error('replaced'); };
    const persistence: RetainedPersistence = { storeRetained: unused, createRetainedStream: unused, createRetainedStreamCombi: unused };
    store.replaceIn(persistence);
    await persistence.storeRetained({ topic: 'locks/a/config', payload: Buffer.from('{"version":1}') });
    await persistence.storeRetained({ topic: 'locks/b/config', payload: Buffer.from('{"version":2}') });
    await persistence.storeRetained({ topic: 'locks/a/state', payload: Buffer.from('{}') });
    await persistence.storeRetained({ topic: 'locks/a/config', payload: Buffer.from('{"version":3}') });
    const read = async (filters: string[]) => {
      const topics: string[] = [];
      for await (const packet of persistence.createRetainedStreamCombi(filters) as AsyncIterable<RetainedPacket>) topics.push(`${packet.topic} ${packet.payload.toString()}`);
      return topics;
    };
    assert.deepEqual(await read(['locks/a/config', 'locks/a/command']), ['locks/a/config {"version":3}']);
    assert.deepEqual(await read(['locks/+/config']), ['locks/a/config {"version":3}', 'locks/b/config {"version":2}']);
    await persistence.storeRetained({ topic: 'locks/a/config', payload: Buffer.alloc(0) });
    assert.deepEqual(await read(['locks/a/config', 'locks/#']), ['locks/b/config {"version":2}', 'locks/a/state {}']);
    assert.equal(store.size, 2);
  });
});
