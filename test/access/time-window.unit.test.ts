import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isWithinTimeRequirement, isWithinUnlockBetween, meetsTimeRequirements } from '../../src/access/time-window.js';
import type { DayName, TimeRequirement, UnlockBetweenWindow } from '../../src/access/types.js';

const at = (iso: string) => Date.parse(iso) / 1000;
const EVERY_DAY: DayName[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const WEEKDAYS: DayName[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'];

function window(start: string, end: string, days: DayName[] = EVERY_DAY, timezone = 'UTC'): TimeRequirement {
  return { start, end, timezone, days };
}

// 2025-06-02 is a Monday, 2025-06-06 a Friday, 2025-06-07 a Saturday.
describe('isWithinTimeRequirement', () => {
  const office = window('09:00', '17:00', WEEKDAYS);

  it('is inside from start (inclusive) to end (exclusive)', () => {
    assert.equal(isWithinTimeRequirement(office, at('2025-06-02T08:59:59Z')), false);
    assert.equal(isWithinTimeRequirement(office, at('2025-06-02T09:00:00Z')), true);
    assert.equal(isWithinTimeRequirement(office, at('2025-06-02T16:59:59Z')), true);
    assert.equal(isWithinTimeRequirement(office, at('2025-06-02T17:00:00Z')), false);
  });

  it('only on the named days', () => {
    assert.equal(isWithinTimeRequirement(office, at('2025-06-06T12:00:00Z')), true);
    assert.equal(isWithinTimeRequirement(office, at('2025-06-07T12:00:00Z')), false);
    assert.equal(isWithinTimeRequirement(window('09:00', '17:00', ['SATURDAY']), at('2025-06-07T12:00:00Z')), true);
  });

  it('uses the local day of its timezone, not the UTC day', () => {
    // Monday 2025-06-02 23:30 UTC is already Tuesday 08:30 in Tokyo.
    const tokyoTuesday = window('08:00', '09:00', ['TUESDAY'], 'Asia/Tokyo');
    assert.equal(isWithinTimeRequirement(tokyoTuesday, at('2025-06-02T23:30:00Z')), true);
    assert.equal(isWithinTimeRequirement(window('08:00', '09:00', ['MONDAY'], 'Asia/Tokyo'), at('2025-06-02T23:30:00Z')), false);
  });

  describe('windows across midnight belong to the day they start on', () => {
    const fridayNight = window('22:00', '02:00', ['FRIDAY']);

    it('covers the evening of the start day and the small hours of the next', () => {
      assert.equal(isWithinTimeRequirement(fridayNight, at('2025-06-06T21:59:00Z')), false);
      assert.equal(isWithinTimeRequirement(fridayNight, at('2025-06-06T22:00:00Z')), true);
      assert.equal(isWithinTimeRequirement(fridayNight, at('2025-06-06T23:59:00Z')), true);
      assert.equal(isWithinTimeRequirement(fridayNight, at('2025-06-07T00:00:00Z')), true);
      assert.equal(isWithinTimeRequirement(fridayNight, at('2025-06-07T01:59:00Z')), true);
      assert.equal(isWithinTimeRequirement(fridayNight, at('2025-06-07T02:00:00Z')), false);
    });

    it('does not cover the small hours of the start day itself', () => {
      assert.equal(isWithinTimeRequirement(fridayNight, at('2025-06-06T01:00:00Z')), false);
    });

    it('does not cover the evening of the following day', () => {
      assert.equal(isWithinTimeRequirement(fridayNight, at('2025-06-07T23:00:00Z')), false);
    });
  });

  it('treats start === end as a whole day from start', () => {
    const monday = window('00:00', '00:00', ['MONDAY']);
    assert.equal(isWithinTimeRequirement(monday, at('2025-06-01T23:59:00Z')), false);
    assert.equal(isWithinTimeRequirement(monday, at('2025-06-02T00:00:00Z')), true);
    assert.equal(isWithinTimeRequirement(monday, at('2025-06-02T23:59:59Z')), true);
    assert.equal(isWithinTimeRequirement(monday, at('2025-06-03T00:00:00Z')), false);
    const fromEight = window('08:00', '08:00', ['MONDAY']);
    assert.equal(isWithinTimeRequirement(fromEight, at('2025-06-02T07:59:00Z')), false);
    assert.equal(isWithinTimeRequirement(fromEight, at('2025-06-03T07:59:00Z')), true);
    assert.equal(isWithinTimeRequirement(fromEight, at('2025-06-03T08:00:00Z')), false);
  });

  describe('DST (Europe/London: last Sunday of March and of October 2025)', () => {
    const eightToNine = window('08:00', '09:00', EVERY_DAY, 'Europe/London');

    it('keeps the window on the wall clock in winter and summer', () => {
      assert.equal(isWithinTimeRequirement(eightToNine, at('2025-01-15T08:30:00Z')), true); // 08:30 GMT
      assert.equal(isWithinTimeRequirement(eightToNine, at('2025-06-15T08:30:00Z')), false); // 09:30 BST
      assert.equal(isWithinTimeRequirement(eightToNine, at('2025-06-15T07:30:00Z')), true); // 08:30 BST
    });

    it('switches on the transition day itself', () => {
      assert.equal(isWithinTimeRequirement(eightToNine, at('2025-03-30T07:30:00Z')), true); // 08:30 BST
      assert.equal(isWithinTimeRequirement(eightToNine, at('2025-03-30T08:30:00Z')), false);
      assert.equal(isWithinTimeRequirement(eightToNine, at('2025-10-26T08:30:00Z')), true); // 08:30 GMT
      assert.equal(isWithinTimeRequirement(eightToNine, at('2025-10-26T07:30:00Z')), false);
    });

    it('never opens a window inside the skipped spring-forward hour', () => {
      const skipped = window('01:00', '02:00', ['SUNDAY'], 'Europe/London');
      for (const iso of ['2025-03-30T00:30:00Z', '2025-03-30T00:59:00Z', '2025-03-30T01:00:00Z', '2025-03-30T01:30:00Z']) {
        assert.equal(isWithinTimeRequirement(skipped, at(iso)), false, iso);
      }
    });

    it('is inside twice during the repeated fall-back hour', () => {
      const repeated = window('01:00', '02:00', ['SUNDAY'], 'Europe/London');
      assert.equal(isWithinTimeRequirement(repeated, at('2025-10-25T23:59:00Z')), false); // 00:59 BST
      assert.equal(isWithinTimeRequirement(repeated, at('2025-10-26T00:30:00Z')), true); // 01:30 BST
      assert.equal(isWithinTimeRequirement(repeated, at('2025-10-26T01:30:00Z')), true); // 01:30 GMT
      assert.equal(isWithinTimeRequirement(repeated, at('2025-10-26T02:00:00Z')), false); // 02:00 GMT
    });
  });

  describe('DST (America/New_York, 9 March and 2 November 2025)', () => {
    const nineToFive = window('09:00', '17:00', ['SUNDAY'], 'America/New_York');

    it('opens at 09:00 local on either side of the change', () => {
      assert.equal(isWithinTimeRequirement(nineToFive, at('2025-03-02T14:00:00Z')), true); // 09:00 EST
      assert.equal(isWithinTimeRequirement(nineToFive, at('2025-03-02T13:59:00Z')), false);
      assert.equal(isWithinTimeRequirement(nineToFive, at('2025-03-09T13:00:00Z')), true); // 09:00 EDT
      assert.equal(isWithinTimeRequirement(nineToFive, at('2025-03-09T12:59:00Z')), false);
      assert.equal(isWithinTimeRequirement(nineToFive, at('2025-11-02T14:00:00Z')), true); // 09:00 EST
      assert.equal(isWithinTimeRequirement(nineToFive, at('2025-11-02T13:59:00Z')), false);
    });

    it('keeps an overnight window on the wall clock across the spring change', () => {
      // Saturday 23:00 to Sunday 03:00 local: that night is an hour shorter, and 03:00 EDT still closes it.
      const saturdayNight = window('23:00', '03:00', ['SATURDAY'], 'America/New_York');
      assert.equal(isWithinTimeRequirement(saturdayNight, at('2025-03-09T06:59:00Z')), true); // 01:59 EST
      assert.equal(isWithinTimeRequirement(saturdayNight, at('2025-03-09T07:00:00Z')), false); // 03:00 EDT
    });
  });

  it('fails closed on a timezone the runtime does not know or a malformed time', () => {
    assert.equal(isWithinTimeRequirement(window('00:00', '00:00', EVERY_DAY, 'Mars/Olympus_Mons'), at('2025-06-02T12:00:00Z')), false);
    assert.equal(isWithinTimeRequirement(window('9:00', '17:00'), at('2025-06-02T12:00:00Z')), false);
    assert.equal(isWithinTimeRequirement(window('09:00', 'xx:yy'), at('2025-06-02T12:00:00Z')), false);
  });
});

describe('meetsTimeRequirements', () => {
  const now = at('2025-06-02T12:00:00Z'); // Monday noon UTC

  it('passes when there are no requirements', () => {
    assert.equal(meetsTimeRequirements(undefined, now), true);
    assert.equal(meetsTimeRequirements([], now), true);
  });

  it('passes when inside at least one window', () => {
    const reqs = [window('06:00', '07:00'), window('11:00', '13:00', ['MONDAY']), window('20:00', '21:00')];
    assert.equal(meetsTimeRequirements(reqs, now), true);
  });

  it('fails when outside every window', () => {
    const reqs = [window('06:00', '07:00'), window('11:00', '13:00', ['TUESDAY']), window('20:00', '21:00')];
    assert.equal(meetsTimeRequirements(reqs, now), false);
  });
});

describe('isWithinUnlockBetween', () => {
  const office: UnlockBetweenWindow = { start: '08:00', end: '18:00', timezone: 'Europe/London', days: WEEKDAYS, exceptions: ['2025-12-25'] };

  it('is inside on ordinary named days and outside on exception dates', () => {
    assert.equal(isWithinUnlockBetween(office, at('2025-12-24T12:00:00Z')), true);
    assert.equal(isWithinUnlockBetween(office, at('2025-12-25T12:00:00Z')), false);
    assert.equal(isWithinUnlockBetween(office, at('2025-12-26T12:00:00Z')), true);
  });

  it('behaves like a time requirement without exceptions (absent or empty)', () => {
    const { exceptions: _ignored, ...plain } = office;
    assert.equal(isWithinUnlockBetween(plain, at('2025-12-25T12:00:00Z')), true);
    assert.equal(isWithinUnlockBetween({ ...plain, exceptions: [] }, at('2025-12-25T12:00:00Z')), true);
    assert.equal(isWithinUnlockBetween(plain, at('2025-12-25T19:00:00Z')), false);
    assert.equal(isWithinUnlockBetween(plain, at('2025-12-27T12:00:00Z')), false); // Saturday
  });

  it('reads exception dates on the local calendar', () => {
    // Auckland is UTC+13 in December: 2025-12-24T12:00Z is already 25 December there.
    const allDay: UnlockBetweenWindow = { start: '00:00', end: '00:00', timezone: 'Pacific/Auckland', days: EVERY_DAY, exceptions: ['2025-12-25'] };
    assert.equal(isWithinUnlockBetween(allDay, at('2025-12-24T12:00:00Z')), false);
    assert.equal(isWithinUnlockBetween(allDay, at('2025-12-25T12:00:00Z')), true);
  });

  it('applies an exception to the overnight occurrence that starts on that date', () => {
    const nights: UnlockBetweenWindow = { start: '22:00', end: '02:00', timezone: 'UTC', days: EVERY_DAY, exceptions: ['2025-12-31'] };
    assert.equal(isWithinUnlockBetween(nights, at('2025-12-31T01:00:00Z')), true); // started 30 December
    assert.equal(isWithinUnlockBetween(nights, at('2025-12-31T23:00:00Z')), false);
    assert.equal(isWithinUnlockBetween(nights, at('2026-01-01T01:00:00Z')), false); // tail of the 31st
    assert.equal(isWithinUnlockBetween(nights, at('2026-01-01T23:00:00Z')), true);
  });

  it('fails closed on an unknown timezone', () => {
    assert.equal(isWithinUnlockBetween({ ...office, timezone: 'Nowhere/Land' }, at('2025-12-24T12:00:00Z')), false);
  });
});
