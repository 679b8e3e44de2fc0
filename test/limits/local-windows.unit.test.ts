import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalWindows } from '../../src/limits/local-windows.js';

describe('LocalWindows (in-process fixed windows)', () => {
  const clock = (start = 1_000_000) => {
    const c = { now: start };
    return { c, now: () => c.now };
  };

  it('lets the limit through, refuses beyond it with the time left, and starts afresh when the window ends', () => {
    const { c, now } = clock();
    const windows = new LocalWindows(3, 60_000, now);
    assert.equal(windows.consume('a', 1), null);
    c.now += 10_000;
    assert.equal(windows.consume('a', 1), null);
    assert.equal(windows.consume('a', 1), null);
    assert.equal(windows.consume('a', 1), 50_000);
    assert.equal(windows.consume('b', 1), null, 'another key has its own count');
    c.now += 50_000;
    assert.equal(windows.consume('a', 1), null);
  });

  it('counts several points at once and reports exhaustion without counting', () => {
    const { c, now } = clock();
    const windows = new LocalWindows(5, 1000, now);
    assert.equal(windows.exhausted('a'), null);
    assert.equal(windows.consume('a', 5), null);
    c.now += 400;
    assert.equal(windows.exhausted('a'), 600);
    assert.equal(windows.exhausted('a'), 600, 'checking does not count');
    windows.forget('a');
    assert.equal(windows.exhausted('a'), null);
    assert.equal(windows.consume('a', 6), 1000);
  });

  it('sweeps ended windows, keeping the keys of live ones', () => {
    const { c, now } = clock();
    const windows = new LocalWindows(1, 1000, now);
    for (let i = 0; i < 100; i++) windows.consume(`old-${i}`, 1);
    c.now += 600;
    windows.consume('recent', 1);
    c.now += 500;
    windows.consume('new', 1);
    assert.equal(windows.size, 2);
  });
});
