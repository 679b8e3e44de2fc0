import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { codeOutlastsGranter, codeStatus, codeTravels, commonDigits, generatedLength, isTrivialCode, syncState } from '../../src/keypad-codes/policy.js';

describe('keypad codes: policy', () => {
  it('refuses digits that are too easy to guess', () => {
    for (const digits of ['0000', '777777', '1234', '45678', '9876', '3210']) assert.equal(isTrivialCode(digits), true, digits);
    for (const digits of ['1235', '4826', '0001', '135790', '9875']) assert.equal(isTrivialCode(digits), false, digits);
  });

  it('narrows the lengths to what every lock of a set takes, and moves a generated length into them', () => {
    assert.deepEqual(commonDigits([]), { min: 4, max: 8 });
    assert.deepEqual(commonDigits([null, { min: 4, max: 10 }]), { min: 4, max: 8 }, 'a Z-Wave lock narrows nothing');
    assert.deepEqual(commonDigits([{ min: 6, max: 8 }, { min: 4, max: 7 }]), { min: 6, max: 7 });
    assert.equal(commonDigits([{ min: 4, max: 5 }, { min: 6, max: 8 }]), null);
    assert.equal(generatedLength({ min: 4, max: 8 }), 6);
    assert.equal(generatedLength({ min: 4, max: 5 }), 5);
    assert.equal(generatedLength({ min: 7, max: 8 }), 7);
  });

  it("reads a code's state on a lock", () => {
    const code = { start: 100, end: 200, maxUses: 2, uses: 0 };
    const guest = { removedReason: null, holderMember: null };
    assert.equal(codeStatus(code, guest, 50), 'scheduled');
    assert.equal(codeStatus(code, guest, 150), 'active');
    assert.equal(codeStatus(code, guest, 200), 'expired');
    assert.equal(codeStatus({ ...code, uses: 2 }, guest, 150), 'used_up');
    assert.equal(codeStatus(code, { ...guest, removedReason: 'revoked' }, 150), 'revoked');
    assert.equal(codeStatus(code, { removedReason: null, holderMember: 'gone' }, 150), 'holder_access_ended');
    assert.equal(codeStatus(code, { removedReason: null, holderMember: { start: null, end: 120 } }, 150), 'holder_access_ended');
    assert.equal(codeStatus(code, { removedReason: null, holderMember: { start: null, end: 180 } }, 150), 'active');
    assert.deepEqual(['active', 'scheduled', 'expired', 'used_up'].map((s) => codeTravels(s as never)), [true, true, false, false]);
  });

  it('keeps a time-limited admin from granting past their own end', () => {
    assert.equal(codeOutlastsGranter({ role: 'ADMIN', end: null }, { end: null }), false);
    assert.equal(codeOutlastsGranter({ role: 'ADMIN', end: 100 }, { end: null }), true);
    assert.equal(codeOutlastsGranter({ role: 'ADMIN', end: 100 }, { end: 101 }), true);
    assert.equal(codeOutlastsGranter({ role: 'ADMIN', end: 100 }, { end: 100 }), false);
  });

  it('says whether the lock holds the last change', () => {
    assert.equal(syncState(5, null, null), 'pending');
    assert.equal(syncState(5, 4, null), 'pending');
    assert.equal(syncState(5, 5, null), 'applied');
    assert.equal(syncState(5, 7, null), 'applied');
    assert.equal(syncState(5, 7, 'bad_signature'), 'failed');
  });
});
