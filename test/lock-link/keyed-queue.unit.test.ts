import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedQueue, QueueFullError } from '../../src/lock-link/keyed-queue.js';

/** A task that finishes when told to, recording when it started. */
function gate(log: string[], name: string) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { task: async () => (log.push(name), opened), open };
}

describe('KeyedQueue', () => {
  it('runs one key in order, one task at a time, and other keys beside it', async () => {
    const queue = new KeyedQueue();
    const log: string[] = [];
    const a1 = gate(log, 'a1');
    const a2 = gate(log, 'a2');
    const b1 = gate(log, 'b1');
    const done = [queue.run('a', a1.task), queue.run('a', a2.task), queue.run('b', b1.task)];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(log, ['a1', 'b1']);
    a1.open();
    await done[0];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(log, ['a1', 'b1', 'a2']);
    a2.open();
    b1.open();
    await Promise.all(done);
  });

  it('goes on after a failed task', async () => {
    const queue = new KeyedQueue();
    const failed = queue.run('a', async () => {
      throw new Error('boom');
    });
    const ran: string[] = [];
    const next = queue.run('a', async () => ran.push('next'));
    await assert.rejects(failed, /boom/);
    await next;
    assert.deepEqual(ran, ['next']);
  });

  it('refuses tasks beyond the bound of a key, takes them again once it drains, and leaves other keys alone', async () => {
    const queue = new KeyedQueue(2);
    const log: string[] = [];
    const first = gate(log, '1');
    const running = [queue.run('a', first.task), queue.run('a', async () => log.push('2'))];
    await assert.rejects(queue.run('a', async () => log.push('3')), QueueFullError);
    await queue.run('b', async () => log.push('b'));
    first.open();
    await Promise.all(running);
    await queue.run('a', async () => log.push('4'));
    await queue.drain();
    assert.deepEqual(log, ['1', 'b', '2', '4']);
  });
});
