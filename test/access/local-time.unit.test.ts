import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isKnownTimezone, localTimeParts, previousDate, previousDay } from '../../src/access/local-time.js';

const at = (iso: string) => Date.parse(iso) / 1000;

describe('localTimeParts', () => {
  it('reads day, minute of day and date in UTC', () => {
    assert.deepEqual(localTimeParts(at('2025-06-02T13:45:59Z'), 'UTC'), { day: 'MONDAY', minutes: 13 * 60 + 45, date: '2025-06-02' });
  });

  it('drops fractions of a second and seconds', () => {
    assert.equal(localTimeParts(at('2025-06-02T00:00:59Z') + 0.999, 'UTC').minutes, 0);
  });

  it('writes midnight as minute 0, not 24:00', () => {
    assert.deepEqual(localTimeParts(at('2025-06-03T00:00:00Z'), 'UTC'), { day: 'TUESDAY', minutes: 0, date: '2025-06-03' });
  });

  it('crosses the date line with the local day (New York is still on the old year)', () => {
    assert.deepEqual(localTimeParts(at('2025-01-01T04:59:00Z'), 'America/New_York'), { day: 'TUESDAY', minutes: 23 * 60 + 59, date: '2024-12-31' });
  });

  it('handles half-hour offsets', () => {
    assert.deepEqual(localTimeParts(at('2025-01-01T18:30:00Z'), 'Asia/Kolkata'), { day: 'THURSDAY', minutes: 0, date: '2025-01-02' });
  });

  it('follows Europe/London into summer time (last Sunday of March)', () => {
    assert.equal(localTimeParts(at('2025-03-30T00:59:00Z'), 'Europe/London').minutes, 59); // 00:59 GMT
    assert.equal(localTimeParts(at('2025-03-30T01:00:00Z'), 'Europe/London').minutes, 120); // 02:00 BST
  });

  it('follows Europe/London back to GMT (last Sunday of October): 01:30 happens twice', () => {
    assert.equal(localTimeParts(at('2025-10-26T00:30:00Z'), 'Europe/London').minutes, 90); // 01:30 BST
    assert.equal(localTimeParts(at('2025-10-26T01:30:00Z'), 'Europe/London').minutes, 90); // 01:30 GMT
  });

  it('follows America/New_York across both transitions', () => {
    assert.equal(localTimeParts(at('2025-03-09T06:59:00Z'), 'America/New_York').minutes, 60 + 59); // 01:59 EST
    assert.equal(localTimeParts(at('2025-03-09T07:00:00Z'), 'America/New_York').minutes, 180); // 03:00 EDT
    assert.equal(localTimeParts(at('2025-11-02T05:30:00Z'), 'America/New_York').minutes, 90); // 01:30 EDT
    assert.equal(localTimeParts(at('2025-11-02T06:30:00Z'), 'America/New_York').minutes, 90); // 01:30 EST
  });

  it('reuses its answer within a minute and moves on at the next one, per timezone', () => {
    const first = localTimeParts(at('2025-06-02T10:15:00Z'), 'Europe/Paris');
    assert.deepEqual(localTimeParts(at('2025-06-02T10:15:59Z'), 'Europe/Paris'), first);
    assert.deepEqual(localTimeParts(at('2025-06-02T10:15:30Z'), 'UTC'), { day: 'MONDAY', minutes: 10 * 60 + 15, date: '2025-06-02' });
    assert.equal(localTimeParts(at('2025-06-02T10:16:00Z'), 'Europe/Paris').minutes, 12 * 60 + 16);
    assert.equal(localTimeParts(at('2025-06-02T10:15:00Z'), 'Europe/Paris').minutes, 12 * 60 + 15); // back in time too
    assert.throws(() => { (first as { minutes: number }).minutes = 0; }, TypeError); // shared answers are frozen
  });

  it('throws a RangeError for an unknown timezone', () => {
    assert.throws(() => localTimeParts(0, 'Mars/Olympus_Mons'), RangeError);
    assert.equal(isKnownTimezone('Mars/Olympus_Mons'), false);
    assert.equal(isKnownTimezone('Europe/London'), true);
  });
});

describe('previousDay / previousDate', () => {
  it('wraps the week', () => {
    assert.equal(previousDay('MONDAY'), 'SUNDAY');
    assert.equal(previousDay('SUNDAY'), 'SATURDAY');
  });

  it('steps back over month, leap day and year boundaries', () => {
    assert.equal(previousDate('2024-03-01'), '2024-02-29');
    assert.equal(previousDate('2025-03-01'), '2025-02-28');
    assert.equal(previousDate('2025-01-01'), '2024-12-31');
    assert.equal(previousDate('2025-06-10'), '2025-06-09');
  });
});
