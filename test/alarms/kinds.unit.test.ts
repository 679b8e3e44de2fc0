import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alarmConditions } from '../../src/alarms/kinds.js';

describe('alarm conditions', () => {
  it('holds each kind on its own fact and leaves unknown facts out', () => {
    assert.deepEqual([...alarmConditions({ battery: null, jammed: null, tamper: null })], []);
    assert.deepEqual(Object.fromEntries(alarmConditions({ battery: 21, jammed: 0, tamper: 1 })), { jammed: false, tampered: true, battery_low: false, battery_critical: false });
    assert.deepEqual(Object.fromEntries(alarmConditions({ battery: 20, jammed: 1, tamper: null })), { jammed: true, battery_low: true, battery_critical: false });
    assert.deepEqual(Object.fromEntries(alarmConditions({ battery: 5, jammed: null, tamper: null })), { battery_low: true, battery_critical: true });
  });
});
