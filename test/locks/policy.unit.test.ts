import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canDecommission, canManageTiles, canUpdateLock, permittedAddressesUpdate, unlockDurationError } from '../../src/locks/policy.js';
import { accessWindowError, canAddMember, canListLockUsers, demotesLastAdmin, membershipChange, outlastsGranter } from '../../src/sharing/policy.js';

const NOW = 1_750_000_000;
const admin = { role: 'ADMIN' as const, start: null, end: null };
const user = { role: 'USER' as const, start: null, end: null };
const lapsedAdmin = { role: 'ADMIN' as const, start: null, end: NOW - 1 };
const futureAdmin = { role: 'ADMIN' as const, start: NOW + 60, end: null };

describe('canUpdateLock', () => {
  it('lets any member change their own fields', () => {
    for (const member of [admin, user, lapsedAdmin]) assert.deepEqual(canUpdateLock(member, { }, NOW), { allowed: true });
  });

  it('lets any member set their own settings.hidden (with the SDK\'s type member), and treats settings: null as none', () => {
    for (const member of [user, lapsedAdmin]) {
      assert.deepEqual(canUpdateLock(member, { settings: { hidden: true } }, NOW), { allowed: true });
      assert.deepEqual(canUpdateLock(member, { settings: { type: 'x.LockSettingsHiddenRequest', hidden: false } }, NOW), { allowed: true });
      assert.deepEqual(canUpdateLock(member, { settings: null }, NOW), { allowed: true });
      assert.equal(canUpdateLock(member, { settings: { hidden: true, defaultName: 'x' } }, NOW).allowed, false);
      assert.equal(canUpdateLock(member, { settings: { type: 'x' } }, NOW).allowed, false);
    }
  });

  it('needs an active ADMIN for settings', () => {
    assert.deepEqual(canUpdateLock(admin, { settings: {} }, NOW), { allowed: true });
    for (const member of [user, lapsedAdmin, futureAdmin]) {
      const decision = canUpdateLock(member, { settings: {} }, NOW);
      assert.equal(decision.allowed, false);
      assert.equal(!decision.allowed && decision.status, 403);
    }
  });
});

describe('admin-only decisions', () => {
  for (const [name, decide] of [['canManageTiles', canManageTiles], ['canListLockUsers', canListLockUsers], ['canAddMember', canAddMember]] as const) {
    it(`${name}: active ADMIN only`, () => {
      assert.equal(decide(admin, NOW).allowed, true);
      assert.equal(decide({ role: 'ADMIN', start: NOW, end: NOW + 1 }, NOW).allowed, true);
      assert.equal(decide(user, NOW).allowed, false);
      assert.equal(decide(lapsedAdmin, NOW).allowed, false);
      assert.equal(decide(futureAdmin, NOW).allowed, false);
    });
  }
});

describe('canDecommission', () => {
  it('is the owner\'s while an active ADMIN, or any active ADMIN\'s once the lock has no owner', () => {
    assert.equal(canDecommission(admin, true, true, NOW).allowed, true);
    assert.equal(canDecommission(admin, false, false, NOW).allowed, true);
    assert.equal(canDecommission(admin, false, true, NOW).allowed, false, 'another ADMIN while the owner is there');
    for (const member of [user, lapsedAdmin, futureAdmin]) {
      assert.equal(canDecommission(member, true, true, NOW).allowed, false);
      assert.equal(canDecommission(member, false, false, NOW).allowed, false);
    }
  });
});

describe('membershipChange and demotesLastAdmin', () => {
  it('names what ADD_USER does', () => {
    assert.equal(membershipChange(undefined, 'USER'), 'LOCK_SHARED');
    assert.equal(membershipChange(undefined, 'ADMIN'), 'LOCK_SHARED');
    assert.equal(membershipChange('USER', 'ADMIN'), 'USER_PROMOTED');
    assert.equal(membershipChange('ADMIN', 'USER'), 'USER_DEMOTED');
    assert.equal(membershipChange('USER', 'USER'), 'WINDOW_UPDATED');
    assert.equal(membershipChange('ADMIN', 'ADMIN'), 'WINDOW_UPDATED');
  });

  it('catches only what ends the only lasting ADMIN: a demotion, or a window that ends or has not begun', () => {
    const now = 1_000_000;
    const admin = { role: 'ADMIN' as const };
    const user = { role: 'USER' as const };
    assert.equal(demotesLastAdmin(admin, user, 1, now), true);
    assert.equal(demotesLastAdmin(admin, user, 2, now), false);
    assert.equal(demotesLastAdmin(admin, admin, 1, now), false);
    assert.equal(demotesLastAdmin(admin, { role: 'ADMIN', end: now + 60 }, 1, now), true);
    assert.equal(demotesLastAdmin(admin, { role: 'ADMIN', start: now + 60 }, 1, now), true);
    assert.equal(demotesLastAdmin(admin, { role: 'ADMIN', start: now - 60 }, 1, now), false);
    // An ADMIN whose window ends was not a lasting one: changing it takes nothing away.
    assert.equal(demotesLastAdmin({ role: 'ADMIN', end: now + 60 }, user, 1, now), false);
    assert.equal(demotesLastAdmin(user, user, 1, now), false);
    assert.equal(demotesLastAdmin(undefined, user, 1, now), false);
  });
});

describe('accessWindowError', () => {
  it('accepts open and ordered windows', () => {
    for (const [start, end] of [[null, null], [undefined, undefined], [0, null], [null, 5], [10, 11]] as const) assert.equal(accessWindowError(start, end), null);
  });

  it('rejects negative, non-finite and reversed windows', () => {
    assert.match(accessWindowError(-1, null)!, /start/);
    assert.match(accessWindowError(null, Number.NaN)!, /end/);
    assert.match(accessWindowError(Number.POSITIVE_INFINITY, null)!, /start/);
    assert.match(accessWindowError(10, 10)!, /after start/);
    assert.match(accessWindowError(10, 9)!, /after start/);
  });
});

describe('permittedAddressesUpdate', () => {
  it('takes either spelling, or both when they agree, removing duplicates', () => {
    assert.deepEqual(permittedAddressesUpdate({}), { ok: true, value: undefined });
    assert.deepEqual(permittedAddressesUpdate({ permittedAddress: ['10.0.0.1', '10.0.0.1'] }), { ok: true, value: ['10.0.0.1'] });
    assert.deepEqual(permittedAddressesUpdate({ permittedAddresses: ['2001:db8::/32'] }), { ok: true, value: ['2001:db8::/32'] });
    assert.deepEqual(permittedAddressesUpdate({ permittedAddress: ['1.2.3.4'], permittedAddresses: ['1.2.3.4'] }), { ok: true, value: ['1.2.3.4'] });
    assert.deepEqual(permittedAddressesUpdate({ permittedAddresses: [] }), { ok: true, value: [] });
  });

  it('rejects disagreement and anything that is not an address or range, naming the field used', () => {
    assert.equal(permittedAddressesUpdate({ permittedAddress: ['1.2.3.4'], permittedAddresses: ['1.2.3.5'] }).ok, false);
    const bad = permittedAddressesUpdate({ permittedAddress: ['1.2.3.4', 'example.com'] });
    assert.equal(bad.ok, false);
    assert.match(!bad.ok ? bad.message : '', /^permittedAddress\[1\]/);
    const badPlural = permittedAddressesUpdate({ permittedAddresses: ['10.0.0.0/40'] });
    assert.match(!badPlural.ok ? badPlural.message : '', /^permittedAddresses\[0\]/);
  });
});

describe('unlockDurationError', () => {
  it('accepts whole seconds from 1 to a day', () => {
    for (const value of [1, 5, 86_400]) assert.equal(unlockDurationError(value), null);
    for (const value of [0, -1, 1.5, 86_401, '5', null, Number.NaN]) assert.notEqual(unlockDurationError(value), null, String(value));
  });
});

describe('outlastsGranter', () => {
  it('holds a time-limited actor to its own end; a lasting one grants anything', () => {
    assert.equal(outlastsGranter({ role: 'ADMIN', end: 100 }, { end: null }), true);
    assert.equal(outlastsGranter({ role: 'ADMIN', end: 100 }, {}), true);
    assert.equal(outlastsGranter({ role: 'ADMIN', end: 100 }, { end: 101 }), true);
    assert.equal(outlastsGranter({ role: 'ADMIN', end: 100 }, { end: 100 }), false);
    assert.equal(outlastsGranter({ role: 'ADMIN', end: null }, { end: null }), false);
    assert.equal(outlastsGranter({ role: 'ADMIN' }, { end: 5 }), false);
  });
});
