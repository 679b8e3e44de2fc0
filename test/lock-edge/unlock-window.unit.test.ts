import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { UnlockBetweenWindow } from '../../src/access/types.js';
import { isInsideUnlockWindow, msUntilNextMinute } from '../../src/lock-edge/unlock-window.js';

/** Unix seconds of a UTC wall-clock instant. */
const utc = (iso: string): number => Date.parse(`${iso}Z`) / 1000;

const weekdays: UnlockBetweenWindow = {
  start: '08:00', end: '18:00', timezone: 'Europe/London', days: ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'],
};

describe('isInsideUnlockWindow', () => {
  it('is never inside without a window', () => {
    assert.equal(isInsideUnlockWindow(null, utc('2025-03-31T12:00:00')), false);
    assert.equal(isInsideUnlockWindow(undefined, utc('2025-03-31T12:00:00')), false);
  });

  it('reads the window on its own timezone\'s wall clock, summer time included', () => {
    // Friday 28 March is GMT (UTC+0); Monday 31 March is BST (UTC+1).
    assert.equal(isInsideUnlockWindow(weekdays, utc('2025-03-28T07:30:00')), false); // 07:30 GMT
    assert.equal(isInsideUnlockWindow(weekdays, utc('2025-03-28T08:00:00')), true); // 08:00 GMT, start inclusive
    assert.equal(isInsideUnlockWindow(weekdays, utc('2025-03-31T07:30:00')), true); // 08:30 BST
    assert.equal(isInsideUnlockWindow(weekdays, utc('2025-03-31T16:59:00')), true); // 17:59 BST
    assert.equal(isInsideUnlockWindow(weekdays, utc('2025-03-31T17:00:00')), false); // 18:00 BST, end exclusive
  });

  it('uses the local day, not the UTC day', () => {
    const newYork: UnlockBetweenWindow = { start: '20:00', end: '23:00', timezone: 'America/New_York', days: ['FRIDAY'] };
    // Saturday 01:30 UTC is Friday 21:30 in New York (EDT, UTC-4) in late March.
    assert.equal(isInsideUnlockWindow(newYork, utc('2025-03-29T01:30:00')), true);
    assert.equal(isInsideUnlockWindow(newYork, utc('2025-03-28T21:30:00')), false); // Friday 17:30 local
  });

  it('skips the hour that does not exist when clocks go forward', () => {
    // London, Sunday 30 March 2025: 01:00 GMT jumps to 02:00 BST.
    const night: UnlockBetweenWindow = { start: '01:00', end: '03:00', timezone: 'Europe/London', days: ['SUNDAY'] };
    assert.equal(isInsideUnlockWindow(night, utc('2025-03-30T00:59:00')), false); // 00:59 GMT
    assert.equal(isInsideUnlockWindow(night, utc('2025-03-30T01:00:00')), true); // 02:00 BST
    assert.equal(isInsideUnlockWindow(night, utc('2025-03-30T01:59:00')), true); // 02:59 BST
    assert.equal(isInsideUnlockWindow(night, utc('2025-03-30T02:00:00')), false); // 03:00 BST
  });

  it('is inside both times through the repeated hour when clocks go back', () => {
    // London, Sunday 26 October 2025: 02:00 BST falls back to 01:00 GMT.
    const night: UnlockBetweenWindow = { start: '01:00', end: '02:00', timezone: 'Europe/London', days: ['SUNDAY'] };
    assert.equal(isInsideUnlockWindow(night, utc('2025-10-25T23:59:00')), false); // 00:59 BST
    assert.equal(isInsideUnlockWindow(night, utc('2025-10-26T00:30:00')), true); // 01:30 BST
    assert.equal(isInsideUnlockWindow(night, utc('2025-10-26T01:30:00')), true); // 01:30 GMT
    assert.equal(isInsideUnlockWindow(night, utc('2025-10-26T02:00:00')), false); // 02:00 GMT
  });

  it('carries a window across midnight into the next day, and honours exception dates by start day', () => {
    const late: UnlockBetweenWindow = { start: '22:00', end: '02:00', timezone: 'UTC', days: ['FRIDAY'] };
    assert.equal(isInsideUnlockWindow(late, utc('2025-12-05T23:00:00')), true); // Friday 23:00
    assert.equal(isInsideUnlockWindow(late, utc('2025-12-06T01:00:00')), true); // Saturday 01:00, begun Friday
    assert.equal(isInsideUnlockWindow(late, utc('2025-12-05T01:00:00')), false); // Friday 01:00, begun Thursday
    const excepted = { ...late, exceptions: ['2025-12-05'] };
    assert.equal(isInsideUnlockWindow(excepted, utc('2025-12-05T23:00:00')), false);
    assert.equal(isInsideUnlockWindow(excepted, utc('2025-12-06T01:00:00')), false);
    assert.equal(isInsideUnlockWindow({ ...late, exceptions: ['2025-12-06'] }, utc('2025-12-06T01:00:00')), true);
  });

  it('fails closed on an unknown timezone', () => {
    assert.equal(isInsideUnlockWindow({ ...weekdays, timezone: 'Mars/Olympus_Mons' }, utc('2025-03-31T12:00:00')), false);
  });
});

describe('msUntilNextMinute', () => {
  it('counts to the next whole minute', () => {
    assert.equal(msUntilNextMinute(utc('2025-03-31T12:00:00')), 60_000);
    assert.equal(msUntilNextMinute(utc('2025-03-31T12:00:59') + 0.5), 500);
    assert.equal(msUntilNextMinute(utc('2025-03-31T12:00:15')), 45_000);
  });
});
