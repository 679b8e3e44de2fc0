/**
 * A clock a test moves by hand, for the service's `now` (startTestService's `clock`): windows,
 * token lifetimes and schedules are then tested by setting the time, not by waiting for it.
 * It stands still between moves; Unix seconds with fraction, as ctx.now() answers.
 */
export interface TestClock {
  now(): number;
  set(seconds: number): void;
  advance(seconds: number): void;
}

export function createTestClock(start = Math.floor(Date.now() / 1000)): TestClock {
  let current = start;
  return {
    now: () => current,
    set(seconds) {
      current = seconds;
    },
    advance(seconds) {
      current += seconds;
    },
  };
}
