import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCalendarDate, validateUnlockBetween, validateUsageRequirements } from '../../src/access/schemas.js';

const time = { start: '08:00', end: '17:00', timezone: 'Europe/London', days: ['MONDAY', 'FRIDAY'] };
const location = { latitude: 51.5, longitude: -0.12, enabled: true, radius: 50, accuracy: 30 };
const unlock = { start: '22:00', end: '02:00', timezone: 'America/New_York', days: ['SATURDAY'], exceptions: ['2024-02-29'] };

describe('validateUsageRequirements', () => {
  it('accepts empty, time-only, location-only and full requirements', () => {
    assert.equal(validateUsageRequirements({}), null);
    assert.equal(validateUsageRequirements({ time: [time, { ...time, start: '00:00', end: '23:59', days: ['SUNDAY'] }] }), null);
    assert.equal(validateUsageRequirements({ location: { latitude: -90, longitude: 180 } }), null);
    assert.equal(validateUsageRequirements({ time: [time], location }), null);
  });

  it('rejects times that are not HH:mm from 00:00 to 23:59', () => {
    for (const bad of ['24:00', '9:00', '09:60', '09:00:00', '0900', '', ' 09:00']) {
      const message = validateUsageRequirements({ time: [{ ...time, start: bad }] });
      assert.match(message ?? '', /^usageRequirements\.time\[0\]\.start: expected local time HH:mm/, bad);
    }
    assert.match(validateUsageRequirements({ time: [{ ...time, end: '23:5' }] }) ?? '', /time\[0\]\.end/);
  });

  it('rejects unknown timezones and offset strings', () => {
    assert.equal(validateUsageRequirements({ time: [{ ...time, timezone: 'Mars/Olympus_Mons' }] }), 'usageRequirements.time[0].timezone: unknown timezone "Mars/Olympus_Mons"');
    assert.match(validateUsageRequirements({ time: [{ ...time, timezone: '+01:00' }] }) ?? '', /time\[0\]\.timezone: expected IANA timezone/);
    assert.match(validateUsageRequirements({ time: [{ ...time, timezone: '' }] }) ?? '', /timezone/);
    assert.match(validateUsageRequirements({ time: [time, { ...time, timezone: 'Europe/Londn' }] }) ?? '', /time\[1\]\.timezone: unknown timezone/);
  });

  it('accepts IANA names such as UTC, Etc/GMT+5 and three-part names', () => {
    for (const timezone of ['UTC', 'Etc/GMT+5', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata']) {
      assert.equal(validateUsageRequirements({ time: [{ ...time, timezone }] }), null, timezone);
    }
  });

  it('rejects bad day lists', () => {
    assert.match(validateUsageRequirements({ time: [{ ...time, days: ['monday'] }] }) ?? '', /days\[0\]: expected upper-case day name/);
    assert.match(validateUsageRequirements({ time: [{ ...time, days: ['FUNDAY'] }] }) ?? '', /days\[0\]/);
    assert.match(validateUsageRequirements({ time: [{ ...time, days: [] }] }) ?? '', /days: expected an array of one to seven distinct/);
    assert.match(validateUsageRequirements({ time: [{ ...time, days: ['MONDAY', 'MONDAY'] }] }) ?? '', /days/);
    assert.match(validateUsageRequirements({ time: [{ ...time, days: 'MONDAY' }] }) ?? '', /days/);
  });

  it('rejects missing and unknown fields', () => {
    const { timezone: _omitted, ...noTimezone } = time;
    assert.equal(validateUsageRequirements({ time: [noTimezone] }), 'usageRequirements.time[0].timezone: required');
    assert.equal(validateUsageRequirements({ location: { latitude: 1 } }), 'usageRequirements.location.longitude: required');
    assert.equal(validateUsageRequirements({ time: [{ ...time, colour: 'red' }] }), 'usageRequirements.time[0].colour: unexpected property');
    assert.equal(validateUsageRequirements({ other: 1 }), 'usageRequirements.other: unexpected property');
  });

  it('rejects out-of-range coordinates, radius and accuracy', () => {
    assert.match(validateUsageRequirements({ location: { ...location, latitude: 90.0001 } }) ?? '', /location\.latitude: expected latitude in degrees, -90 to 90/);
    assert.match(validateUsageRequirements({ location: { ...location, longitude: -180.5 } }) ?? '', /location\.longitude/);
    assert.match(validateUsageRequirements({ location: { ...location, radius: 0 } }) ?? '', /location\.radius/);
    assert.match(validateUsageRequirements({ location: { ...location, accuracy: -1 } }) ?? '', /location\.accuracy/);
    assert.match(validateUsageRequirements({ location: { ...location, enabled: 'yes' } }) ?? '', /location\.enabled/);
    assert.match(validateUsageRequirements({ location: { ...location, latitude: '51.5' } }) ?? '', /location\.latitude/);
  });

  it('rejects values that are not objects, and time that is not an array', () => {
    for (const bad of [null, 'x', 3, []]) assert.equal(validateUsageRequirements(bad), 'usageRequirements: expected object', JSON.stringify(bad));
    assert.match(validateUsageRequirements({ time: time }) ?? '', /^usageRequirements\.time: expected an array/);
  });

  it('names the root the caller gives', () => {
    assert.match(validateUsageRequirements({ location: { latitude: 100, longitude: 0 } }, 'settings.usageRequirements') ?? '', /^settings\.usageRequirements\.location\.latitude/);
  });
});

describe('validateUnlockBetween', () => {
  it('accepts a window with or without exceptions', () => {
    assert.equal(validateUnlockBetween(unlock), null);
    const { exceptions: _omitted, ...noExceptions } = unlock;
    assert.equal(validateUnlockBetween(noExceptions), null);
    assert.equal(validateUnlockBetween({ ...unlock, exceptions: [] }), null);
  });

  it('rejects exception dates that are not YYYY-MM-DD or not on the calendar', () => {
    assert.match(validateUnlockBetween({ ...unlock, exceptions: ['2025-1-01'] }) ?? '', /^unlockBetween\.exceptions\[0\]: expected local date YYYY-MM-DD/);
    assert.equal(validateUnlockBetween({ ...unlock, exceptions: ['2025-01-01', '2025-02-29'] }), 'unlockBetween.exceptions[1]: "2025-02-29" is not a calendar date');
    assert.match(validateUnlockBetween({ ...unlock, exceptions: ['2025-13-01'] }) ?? '', /not a calendar date/);
  });

  it('rejects bad times, timezones, days and extra fields', () => {
    assert.match(validateUnlockBetween({ ...unlock, end: '25:00' }) ?? '', /^unlockBetween\.end:/);
    assert.equal(validateUnlockBetween({ ...unlock, timezone: 'Europe/Nowhere' }), 'unlockBetween.timezone: unknown timezone "Europe/Nowhere"');
    assert.match(validateUnlockBetween({ ...unlock, days: ['SAT'] }) ?? '', /^unlockBetween\.days\[0\]/);
    assert.equal(validateUnlockBetween({ ...unlock, enabled: true }), 'unlockBetween.enabled: unexpected property');
    assert.equal(validateUnlockBetween(null), 'unlockBetween: expected object');
  });
});

describe('isCalendarDate', () => {
  it('knows leap years', () => {
    assert.equal(isCalendarDate('2024-02-29'), true);
    assert.equal(isCalendarDate('2100-02-29'), false);
    assert.equal(isCalendarDate('2000-02-29'), true);
    assert.equal(isCalendarDate('2025-04-31'), false);
    assert.equal(isCalendarDate('2025-00-10'), false);
  });
});
