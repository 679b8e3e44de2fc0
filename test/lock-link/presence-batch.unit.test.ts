import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PresenceBatch } from '../../src/lock-link/presence-batch.js';

describe('presence changes written together', () => {
  it('writes the changes of one turn in one call, and answers each whether it was audited', async () => {
    const calls: string[][] = [];
    const batch = new PresenceBatch(async (changes) => {
      calls.push(changes.map(({ lockId, online }) => `${lockId}:${online}`));
      return new Set(changes.filter(({ lockId }) => lockId !== 'b').map(({ lockId }) => lockId));
    }, 2);
    const answers = await Promise.all([batch.record('a', true), batch.record('b', true), batch.record('c', false)]);
    assert.deepEqual(answers, [true, false, true]);
    assert.deepEqual(calls, [['a:true', 'b:true'], ['c:false']]);
  });

  it('writes each change alone when their batch fails, so one bad change loses no other', async () => {
    const calls: number[] = [];
    const batch = new PresenceBatch(async (changes) => {
      calls.push(changes.length);
      if (changes.some(({ lockId }) => lockId === 'bad')) throw new Error('refused');
      return new Set(changes.map(({ lockId }) => lockId));
    });
    const outcomes = await Promise.allSettled([batch.record('a', true), batch.record('bad', true), batch.record('c', true)]);
    assert.deepEqual(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.deepEqual(calls, [3, 1, 1, 1]);
  });
});
