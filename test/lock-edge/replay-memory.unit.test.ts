import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReplayMemory } from '../../src/lock-edge/replay-memory.js';

const journal = async (): Promise<string> => join(await mkdtemp(join(tmpdir(), 'latchkey-replays-')), 'edge', 'replays');

describe('replay memory kept on disk', () => {
  it('remembers live tokens across a reopen, forgets expired ones, and keeps any character of a key', async () => {
    const file = await journal();
    const memory = ReplayMemory.open(file, 10);
    assert.equal(memory.remember('alice\tjti-1\n', 100, 10), 'new');
    assert.equal(memory.remember('bob', 20, 10), 'new');
    memory.close();

    const reopened = ReplayMemory.open(file, 50);
    assert.equal(reopened.size, 1); // bob's expired at 20
    assert.equal(reopened.remember('alice\tjti-1\n', 100, 50), 'replayed');
    assert.equal(reopened.remember('bob', 200, 50), 'new');
    reopened.close();
  });

  it('drops a torn last line (a crash mid-write) and keeps the rest', async () => {
    const file = await journal();
    const memory = ReplayMemory.open(file, 10);
    memory.remember('kept', 100, 10);
    memory.close();
    appendFileSync(file, '["torn",10');
    const reopened = ReplayMemory.open(file, 10);
    assert.equal(reopened.size, 1);
    assert.equal(reopened.remember('kept', 100, 10), 'replayed');
    reopened.close();
    assert.doesNotMatch(readFileSync(file, 'utf8'), /torn/); // rewritten with the live keys only
  });

  it('rewrites a journal grown far past its live keys', async () => {
    const file = await journal();
    const memory = ReplayMemory.open(file, 0);
    for (let i = 0; i < 1_500; i += 1) memory.remember(`k${i}`, i + 1, i); // each expires before the next
    memory.close();
    assert.ok(readFileSync(file, 'utf8').split('\n').length < 1_100);
    assert.equal(ReplayMemory.open(file, 1_499).remember('k1499', 1_500, 1_499), 'replayed');
  });
});
