import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALARM_KINDS, alarmConditions } from '../../src/alarms/kinds.js';
import { AlarmKindSchema } from '../../src/alarms/schemas.js';
import { refusalsHold } from '../../src/alarms/thresholds.js';

describe('alarm conditions', () => {
  it('holds each kind on its own fact and leaves unknown facts out', () => {
    assert.deepEqual([...alarmConditions({ battery: null, jammed: null, tamper: null })], []);
    assert.deepEqual(Object.fromEntries(alarmConditions({ battery: 21, jammed: 0, tamper: 1 })), { jammed: false, tampered: true, battery_low: false, battery_critical: false });
    assert.deepEqual(Object.fromEntries(alarmConditions({ battery: 20, jammed: 1, tamper: null })), { jammed: true, battery_low: true, battery_critical: false });
    assert.deepEqual(Object.fromEntries(alarmConditions({ battery: 5, jammed: null, tamper: null })), { battery_low: true, battery_critical: true });
  });
});

describe('alarm kinds and thresholds', () => {
  it('declares every kind in the API schema', () => {
    assert.deepEqual(AlarmKindSchema.anyOf.map((literal: { const: string }) => literal.const).sort(), [...ALARM_KINDS].sort());
  });

  it('holds refused unlocks only with N inside the window', () => {
    const limits = { refusedUnlocks: 3, refusedWindowSeconds: 60 };
    assert.equal(refusalsHold([100, 90], limits, 100), false);
    assert.equal(refusalsHold([100, 90, 40], limits, 100), true);
    assert.equal(refusalsHold([100, 90, 39], limits, 100), false);
    assert.equal(refusalsHold([100, 90, 80], limits, 141), false);
  });
});
