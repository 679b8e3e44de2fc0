import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReportThrottle } from '../../src/limits/report-throttle.js';

/** A throttle on a hand-driven clock; `advance` fires the flushes that fall due. */
function throttled(points: number) {
  let now = 0;
  const timers: Array<{ at: number; task: () => void; cancelled: boolean }> = [];
  const told: string[] = [];
  const throttle = new ReportThrottle({
    points,
    windowMs: 60_000,
    onThrottled: (lockId) => told.push(lockId),
    now: () => now,
    schedule: (task, ms) => {
      const timer = { at: now + ms, task, cancelled: false };
      timers.push(timer);
      return { cancel: () => void (timer.cancelled = true) };
    },
  });
  const advance = (ms: number) => {
    now += ms;
    for (const timer of timers.splice(0).sort((a, b) => a.at - b.at)) {
      if (timer.at <= now && !timer.cancelled) timer.task();
      else if (timer.at > now) timers.push(timer);
    }
  };
  /** Moves the clock only: timers due run at the next `advance`. */
  const tick = (ms: number) => void (now += ms);
  return { throttle, told, advance, tick };
}

describe('ReportThrottle', () => {
  it('records a lock\'s reports up to the limit, then drops its events and says so once a minute', () => {
    const { throttle, told } = throttled(3);
    const recorded: string[] = [];
    for (let i = 0; i < 5; i++) throttle.event('a', () => recorded.push(`e${i}`));
    throttle.event('b', () => recorded.push('b')); // another lock has its own count
    assert.deepEqual(recorded, ['e0', 'e1', 'e2', 'b']);
    assert.deepEqual(told, ['a']);
  });

  it('holds the latest presence and state past the limit and records them when the minute ends', () => {
    const { throttle, advance } = throttled(2);
    const recorded: string[] = [];
    throttle.latest('a', 'state', () => recorded.push('locked'));
    throttle.latest('a', 'state', () => recorded.push('unlocked'));
    for (const state of ['locked again', 'unlocked again', 'final']) throttle.latest('a', 'state', () => recorded.push(state));
    throttle.latest('a', 'presence', () => recorded.push('online'));
    assert.deepEqual(recorded, ['locked', 'unlocked']);
    advance(60_000);
    assert.deepEqual(recorded, ['locked', 'unlocked', 'final', 'online']);
  });

  it('records what it holds of a lock before that lock\'s next admitted event, which is newer', () => {
    const { throttle, advance, tick } = throttled(1);
    const recorded: string[] = [];
    throttle.latest('a', 'state', () => recorded.push('state 1'));
    throttle.latest('a', 'state', () => recorded.push('state 2 (held)'));
    tick(60_000); // a new minute, its flush timer not yet run
    throttle.event('a', () => recorded.push('door event'));
    advance(0); // the late timer finds nothing left to do
    assert.deepEqual(recorded, ['state 1', 'state 2 (held)', 'door event']);
  });

  it('drops what it holds on close', () => {
    const { throttle, advance } = throttled(1);
    const recorded: string[] = [];
    throttle.latest('a', 'state', () => recorded.push('first'));
    throttle.latest('a', 'state', () => recorded.push('held'));
    throttle.close();
    advance(60_000);
    assert.deepEqual(recorded, ['first']);
  });
});
