import { adminOnly, canReadAdminData, type Allowed, type Decision, type Denied, type Enrolment } from '../access/member-policy.js';
import type { Member, MemberRole } from '../access/types.js';
import { DIRECT_NAMESPACE, type UserRow } from '../accounts/queries.js';

/**
 * Who may share what (decisions §4): enrolling, promoting, demoting and removing members, their
 * windows, the last-admin rule and held shares. Pure and unit-tested
 * (test/access/member-policy.unit.test.ts, test/locks/policy.unit.test.ts); `now` is Unix
 * seconds. Results are values (src/access/member-policy.ts, Decision); `assertAllowed` there
 * turns a refusal into the catalogue's AppError.
 */

export type RemovalDecision = (Allowed & { lockBecomesUnowned: boolean }) | Denied;

/** The refusal of a change that would leave members but no lasting ADMIN (the catalogue's lastAdmin). */
export const LAST_ADMIN: Denied = { allowed: false, status: 409, reason: 'the last admin cannot leave while other users remain', error: 'last_admin' };

/** ADD_USER and REMOVE_USER of others: an ADMIN, inside their window when `now` is given. */
export function canManageMembers(member: Enrolment, now?: number): Decision {
  return adminOnly(member, now);
}

/** ADD_USER: an active ADMIN. */
export function canAddMember(member: Enrolment, now: number): Decision {
  return canManageMembers(member, now);
}

/** GET /device/{id}/users: an active ADMIN of the lock. */
export function canListLockUsers(member: Enrolment, now: number): Decision {
  return canReadAdminData(member, now);
}

export type MembershipChange = 'LOCK_SHARED' | 'USER_PROMOTED' | 'USER_DEMOTED' | 'WINDOW_UPDATED';

/** What ADD_USER does to a user with role `current` (undefined: not enrolled) when asked for `wanted`. */
export function membershipChange(current: MemberRole | undefined, wanted: MemberRole): MembershipChange {
  if (current === undefined) return 'LOCK_SHARED';
  if (current === wanted) return 'WINDOW_UPDATED';
  return wanted === 'ADMIN' ? 'USER_PROMOTED' : 'USER_DEMOTED';
}

/**
 * Turning the only lasting ADMIN (isLastingAdmin) into a USER, or into an ADMIN whose window ends,
 * would leave a lock with members and, sooner or later, nobody to manage them (409).
 */
export function demotesLastAdmin(current: Enrolment | undefined, wanted: Enrolment, adminCount: number, now: number): boolean {
  return current !== undefined && isLastingAdmin(current, now) && !isLastingAdmin(wanted, now) && adminCount <= 1;
}

/**
 * A time-limited ADMIN grants nothing that outlasts their own access: every role or window they
 * give (a second account of theirs included) must end no later than their own `end`, else their
 * access could be carried past it through another member (403).
 */
export function outlastsGranter(actor: Enrolment, granted: { end?: number | null }): boolean {
  return actor.end != null && (granted.end == null || granted.end > actor.end);
}

/** An access window: finite non-negative seconds, and an end after its start. Null when valid, else a message for a 400. */
export function accessWindowError(start: number | null | undefined, end: number | null | undefined): string | null {
  for (const [name, value] of [['start', start], ['end', end]] as const) {
    if (value != null && (!Number.isFinite(value) || value < 0)) return `${name} must be Unix seconds or null`;
  }
  if (start != null && end != null && end <= start) return 'end must be after start';
  return null;
}

/**
 * An ADMIN who can manage the lock now and for good: inside their window, with no end. Only these
 * count for the last-admin rule: an ADMIN whose window ends (or has not begun) would leave the
 * lock, when it ends, with members and nobody able to manage them.
 */
export function isLastingAdmin(member: Enrolment, now: number | undefined): boolean {
  return member.role === 'ADMIN' && member.end == null && (now === undefined || member.start == null || now >= member.start);
}

export interface MembershipCounts {
  /** Lasting ADMINs (isLastingAdmin) enrolled on the lock, the actor included. */
  adminCount: number;
  /** Members enrolled on the lock now, of any role, the actor included. */
  memberCount: number;
  /** When given, the actor must be inside its window to remove others. */
  now?: number;
}

/**
 * REMOVE_USER of several members at once. `targets` must be enrolled members (the caller answers
 * 404 or ignores others beforehand). Removing oneself is open to any member; removing others is
 * ADMIN only. A removal that would leave members but no ADMIN is refused (409, last admin);
 * one that leaves nobody returns the lock to unowned.
 */
export function canRemoveMembers(
  actor: Enrolment & Pick<Member, 'userId'>,
  targets: ReadonlyArray<{ userId: string } & Enrolment>,
  counts: MembershipCounts,
): RemovalDecision {
  const unique = [...new Map(targets.map((target) => [target.userId, target])).values()];
  if (unique.some((target) => target.userId !== actor.userId)) {
    const decision = adminOnly(actor, counts.now);
    if (!decision.allowed) return decision;
  }
  const remainingMembers = counts.memberCount - unique.length;
  const removedAdmins = unique.filter((target) => isLastingAdmin(target, counts.now)).length;
  if (remainingMembers <= 0) return { allowed: true, lockBecomesUnowned: true };
  if (removedAdmins > 0 && counts.adminCount - removedAdmins <= 0) {
    return LAST_ADMIN;
  }
  return { allowed: true, lockBecomesUnowned: false };
}

/**
 * REMOVE_USER of one member. When `targetUserId` is someone else its role is not needed: an
 * ADMIN actor remains, so the lock keeps an admin whatever the target was.
 */
export function canRemoveMember(actor: Enrolment & Pick<Member, 'userId'>, targetUserId: string, counts: MembershipCounts): RemovalDecision {
  const target = targetUserId === actor.userId ? actor : { userId: targetUserId, role: 'USER' as const };
  return canRemoveMembers(actor, [target], counts);
}

/**
 * Whether a share to this user must wait for their email to be verified (issue 15): a direct
 * account whose address nobody has proved may have been registered by anyone, so whoever holds
 * the mailbox must first verify it. A pending invite (orphan) cannot sign in; its shares are held
 * when a registration takes it over. An application's users are vouched for by their application.
 */
export function shareWaitsForVerification(user: Pick<UserRow, 'namespace' | 'email_verified' | 'orphan'>): boolean {
  return user.namespace === DIRECT_NAMESPACE && user.email_verified === 0 && user.orphan === 0;
}
