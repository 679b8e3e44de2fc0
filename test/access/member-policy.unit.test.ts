import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertAllowed, canChangeSettings, canReadAdminData, canUnlock, isMemberActive, type UnlockRequest } from '../../src/access/member-policy.js';
import { canManageMembers, canRemoveMember, canRemoveMembers, isLastingAdmin } from '../../src/sharing/policy.js';
import type { Member, UsageRequirements } from '../../src/access/types.js';
import { AppError } from '../../src/errors/catalogue.js';

const NOW = Date.parse('2025-06-02T12:00:00Z') / 1000; // Monday noon UTC
const admin: Member = { userId: 'admin-1', role: 'ADMIN', start: null, end: null };
const user: Member = { userId: 'user-1', role: 'USER', start: null, end: null };
const door = { latitude: 51.5, longitude: 0 };
const atDoor = { latitude: 51.5, longitude: 0, accuracy: 10 };
const nightsOnly: UsageRequirements = { time: [{ start: '22:00', end: '06:00', timezone: 'UTC', days: ['MONDAY'] }] };
const weekdayDaytime: UsageRequirements = { time: [{ start: '08:00', end: '18:00', timezone: 'UTC', days: ['MONDAY', 'TUESDAY'] }] };

function unlock(overrides: Partial<UnlockRequest>): ReturnType<typeof canUnlock> {
  return canUnlock({ member: user, callerIp: '203.0.113.7', now: NOW, ...overrides });
}

describe('isMemberActive', () => {
  it('treats null or absent start as immediately and null end as never', () => {
    assert.equal(isMemberActive({ start: null, end: null }, NOW), true);
    assert.equal(isMemberActive({}, NOW), true);
  });

  it('includes start and excludes end', () => {
    assert.equal(isMemberActive({ start: NOW, end: null }, NOW), true);
    assert.equal(isMemberActive({ start: NOW + 1, end: null }, NOW), false);
    assert.equal(isMemberActive({ start: null, end: NOW }, NOW), false);
    assert.equal(isMemberActive({ start: null, end: NOW + 0.5 }, NOW), true);
  });
});

describe('canUnlock', () => {
  it('allows an unrestricted member', () => {
    assert.deepEqual(unlock({}), { allowed: true });
    assert.deepEqual(unlock({ requirements: {}, permittedAddresses: [] }), { allowed: true });
  });

  it('refuses anyone, ADMIN included, outside their own window', () => {
    assert.deepEqual(unlock({ member: { ...user, start: NOW + 60 } }), { allowed: false, status: 403, reason: 'access has not started yet' });
    assert.deepEqual(unlock({ member: { ...admin, end: NOW - 60 } }), { allowed: false, status: 403, reason: 'access has ended' });
  });

  it('refuses anyone, ADMIN included, from an address not permitted', () => {
    const permittedAddresses = ['198.51.100.0/24'];
    assert.deepEqual(unlock({ permittedAddresses }), { allowed: false, status: 403, reason: 'caller address not permitted' });
    assert.deepEqual(unlock({ member: admin, permittedAddresses }), { allowed: false, status: 403, reason: 'caller address not permitted' });
    assert.deepEqual(unlock({ permittedAddresses, callerIp: '198.51.100.9' }), { allowed: true });
    assert.deepEqual(unlock({ permittedAddresses, callerIp: undefined }), { allowed: false, status: 403, reason: 'caller address not permitted' });
  });

  it('lets a USER unlock for the lock\'s duration or less, an ADMIN for longer', () => {
    const reason = "a USER may not unlock for longer than the lock's unlock duration";
    assert.deepEqual(unlock({ duration: 86_400, unlockDuration: 5 }), { allowed: false, status: 403, reason });
    assert.deepEqual(unlock({ duration: 5, unlockDuration: 5 }), { allowed: true });
    assert.deepEqual(unlock({ duration: null, unlockDuration: 5 }), { allowed: true });
    assert.deepEqual(unlock({ member: admin, duration: 86_400, unlockDuration: 5 }), { allowed: true });
  });

  it('refuses a USER outside every time requirement and allows one inside', () => {
    assert.deepEqual(unlock({ requirements: nightsOnly }), { allowed: false, status: 403, reason: 'outside permitted times' });
    assert.deepEqual(unlock({ requirements: weekdayDaytime }), { allowed: true });
  });

  it('refuses a USER failing the location requirement, with the reason', () => {
    const requirements: UsageRequirements = { location: door };
    assert.deepEqual(unlock({ requirements }), { allowed: false, status: 403, reason: 'location required' });
    assert.deepEqual(unlock({ requirements, location: { ...atDoor, accuracy: 500 } }), { allowed: false, status: 403, reason: 'location accuracy insufficient' });
    assert.deepEqual(unlock({ requirements, location: { ...atDoor, latitude: 51.6 } }), { allowed: false, status: 403, reason: 'outside permitted area' });
    assert.deepEqual(unlock({ requirements, location: atDoor }), { allowed: true });
    assert.deepEqual(unlock({ requirements: { location: { ...door, enabled: false } } }), { allowed: true });
  });

  it('needs both time and location when both are set', () => {
    const requirements: UsageRequirements = { ...weekdayDaytime, location: door };
    assert.deepEqual(unlock({ requirements, location: atDoor }), { allowed: true });
    assert.equal(unlock({ requirements }).allowed, false);
    assert.equal(unlock({ requirements: { ...nightsOnly, location: door }, location: atDoor }).allowed, false);
  });

  it('exempts an ADMIN from usage requirements', () => {
    assert.deepEqual(unlock({ member: admin, requirements: { ...nightsOnly, location: door } }), { allowed: true });
  });
});

describe('admin-only actions', () => {
  for (const [name, check] of [['canManageMembers', canManageMembers], ['canChangeSettings', canChangeSettings], ['canReadAdminData', canReadAdminData]] as const) {
    it(`${name}: ADMIN yes, USER 403`, () => {
      assert.deepEqual(check(admin), { allowed: true });
      assert.deepEqual(check(user), { allowed: false, status: 403, reason: 'admin role required' });
    });

    it(`${name}: with now, an ADMIN outside its window is refused`, () => {
      assert.deepEqual(check(admin, NOW), { allowed: true });
      assert.deepEqual(check({ ...admin, end: NOW }, NOW), { allowed: false, status: 403, reason: 'access has ended' });
      assert.deepEqual(check({ ...admin, end: NOW }), { allowed: true }); // role only without now
    });
  }
});

describe('canRemoveMember', () => {
  it('lets any member remove itself', () => {
    assert.deepEqual(canRemoveMember(user, user.userId, { adminCount: 1, memberCount: 3 }), { allowed: true, lockBecomesUnowned: false });
    assert.deepEqual(canRemoveMember({ ...user, end: NOW - 1 }, user.userId, { adminCount: 1, memberCount: 3, now: NOW }), { allowed: true, lockBecomesUnowned: false });
  });

  it('lets only an ADMIN remove others', () => {
    assert.deepEqual(canRemoveMember(user, 'someone-else', { adminCount: 1, memberCount: 3 }), { allowed: false, status: 403, reason: 'admin role required' });
    assert.deepEqual(canRemoveMember(admin, user.userId, { adminCount: 1, memberCount: 3 }), { allowed: true, lockBecomesUnowned: false });
    assert.deepEqual(canRemoveMember(admin, 'admin-2', { adminCount: 2, memberCount: 3 }), { allowed: true, lockBecomesUnowned: false });
  });

  it('refuses an ADMIN outside its window removing others when now is given', () => {
    assert.deepEqual(canRemoveMember({ ...admin, start: NOW + 10 }, user.userId, { adminCount: 1, memberCount: 2, now: NOW }), {
      allowed: false, status: 403, reason: 'access has not started yet',
    });
  });

  it('refuses the last ADMIN leaving while other users remain (409)', () => {
    assert.deepEqual(canRemoveMember(admin, admin.userId, { adminCount: 1, memberCount: 2 }), {
      allowed: false, status: 409, reason: 'the last admin cannot leave while other users remain', error: 'last_admin',
    });
  });

  it('lets an ADMIN leave when another ADMIN remains', () => {
    assert.deepEqual(canRemoveMember(admin, admin.userId, { adminCount: 2, memberCount: 5 }), { allowed: true, lockBecomesUnowned: false });
  });

  it('returns the lock to unowned when the only member leaves', () => {
    assert.deepEqual(canRemoveMember(admin, admin.userId, { adminCount: 1, memberCount: 1 }), { allowed: true, lockBecomesUnowned: true });
  });

  it('counts only lasting ADMINs: one whose window ends cannot be left as the last', () => {
    // adminCount holds lasting ADMINs only; the leaving ADMIN is one, the other has an end.
    assert.deepEqual(canRemoveMember(admin, admin.userId, { adminCount: 1, memberCount: 3, now: NOW }), {
      allowed: false, status: 409, reason: 'the last admin cannot leave while other users remain', error: 'last_admin',
    });
    // An ADMIN with an end leaving takes no lasting ADMIN away.
    assert.deepEqual(canRemoveMember({ ...admin, end: NOW + 60 }, admin.userId, { adminCount: 1, memberCount: 3, now: NOW }), { allowed: true, lockBecomesUnowned: false });
    assert.equal(isLastingAdmin({ role: 'ADMIN', start: NOW + 1 }, NOW), false);
    assert.equal(isLastingAdmin({ role: 'ADMIN', start: NOW }, NOW), true);
    assert.equal(isLastingAdmin({ role: 'USER' }, NOW), false);
  });

  it('lets a USER leave a lock that (inconsistently) has no admin', () => {
    assert.deepEqual(canRemoveMember(user, user.userId, { adminCount: 0, memberCount: 2 }), { allowed: true, lockBecomesUnowned: false });
  });
});

describe('canRemoveMembers (several at once)', () => {
  const counts = { adminCount: 1, memberCount: 3 };
  const others = [{ userId: 'user-1', role: 'USER' as const }, { userId: 'user-2', role: 'USER' as const }];

  it('lets the last ADMIN remove everyone including itself: the lock becomes unowned', () => {
    assert.deepEqual(canRemoveMembers(admin, [...others, { userId: admin.userId, role: 'ADMIN' }], counts), { allowed: true, lockBecomesUnowned: true });
  });

  it('refuses the last ADMIN removing itself and only some others', () => {
    assert.equal(canRemoveMembers(admin, [others[0]!, { userId: admin.userId, role: 'ADMIN' }], counts).allowed, false);
  });

  it('counts a target listed twice once', () => {
    assert.deepEqual(canRemoveMembers(admin, [others[0]!, others[0]!], counts), { allowed: true, lockBecomesUnowned: false });
  });

  it('refuses a USER removing itself and someone else', () => {
    assert.deepEqual(canRemoveMembers(user, [{ userId: user.userId, role: 'USER' }, { userId: 'user-2', role: 'USER' }], counts), {
      allowed: false, status: 403, reason: 'admin role required',
    });
  });
});

describe('assertAllowed', () => {
  it('passes an allowed result through', () => {
    const result = canRemoveMember(admin, admin.userId, { adminCount: 1, memberCount: 1 });
    assertAllowed(result);
    assert.equal(result.lockBecomesUnowned, true); // narrowed to the allowed form
  });

  it('throws a 403 AppError with the reason', () => {
    assert.throws(() => assertAllowed(canManageMembers(user)), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.status, 403);
      assert.equal(error.message, 'admin role required');
      return true;
    });
  });

  it('throws the last-admin 409 AppError', () => {
    assert.throws(() => assertAllowed(canRemoveMember(admin, admin.userId, { adminCount: 1, memberCount: 2 })), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.status, 409);
      assert.equal(error.error, 'last_admin');
      assert.equal(error.code, 409.4);
      return true;
    });
  });
});
