import { parsePermittedAddresses } from '../access/addresses.js';
import { canChangeSettings, canManageMembers, canReadAdminData, isLastingAdmin, type Decision } from '../access/member-policy.js';
import type { MemberRole } from '../access/types.js';

/**
 * Lock-specific rules on top of src/access/member-policy.ts, pure and unit-tested
 * (test/locks/policy.unit.test.ts). `now` is Unix seconds: an ADMIN outside their start/end
 * window administers nothing (decisions §4).
 */

type Enrolment = { role: MemberRole; start?: number | null; end?: number | null };

/** Settings that are the member's own (`type` is the SDK's class name, carried alongside). */
const MEMBER_OWN_SETTINGS = new Set(['hidden', 'type']);

function onlyMemberOwnSettings(settings: unknown): boolean {
  if (typeof settings !== 'object' || settings === null) return false;
  const names = Object.keys(settings);
  return names.includes('hidden') && names.every((name) => MEMBER_OWN_SETTINGS.has(name));
}

/**
 * PUT /device/{id}: name, favourite, colour and `settings.hidden` are the member's own; any other
 * `settings` need an active ADMIN. `settings: null` names nothing.
 */
export function canUpdateLock(member: Enrolment, update: { settings?: unknown }, now: number): Decision {
  if (update.settings === undefined || update.settings === null || onlyMemberOwnSettings(update.settings)) return { allowed: true };
  return canChangeSettings(member, now);
}

/** Linking and unlinking tiles: an active ADMIN of the lock. */
export function canManageTiles(member: Enrolment, now: number): Decision {
  return canChangeSettings(member, now);
}

/** GET /device/{id}/users: an active ADMIN of the lock. */
export function canListLockUsers(member: Enrolment, now: number): Decision {
  return canReadAdminData(member, now);
}

/** ADD_USER: an active ADMIN. */
export function canAddMember(member: Enrolment, now: number): Decision {
  return canManageMembers(member, now);
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

export type AddressesUpdate = { ok: true; value: string[] | undefined } | { ok: false; message: string };

/**
 * PUT settings may name the list `permittedAddress` (spec) or `permittedAddresses` (decisions §1).
 * Both at once must agree. Each entry must be an IPv4/IPv6 address or CIDR range.
 */
export function permittedAddressesUpdate(settings: { permittedAddress?: string[]; permittedAddresses?: string[] }): AddressesUpdate {
  const { permittedAddress: a, permittedAddresses: b } = settings;
  if (a !== undefined && b !== undefined && JSON.stringify(a) !== JSON.stringify(b)) {
    return { ok: false, message: 'permittedAddress and permittedAddresses differ; send one of them' };
  }
  const list = a ?? b;
  if (list === undefined) return { ok: true, value: undefined };
  const parsed = parsePermittedAddresses(list);
  if (!parsed.ok) return { ok: false, message: parsed.message.replace(/^permittedAddresses/, a !== undefined ? 'permittedAddress' : 'permittedAddresses') };
  return { ok: true, value: [...new Set(list)] };
}

/** Seconds a lock stays unlocked: a positive whole number up to a day. Null when valid, else a message. */
export function unlockDurationError(value: unknown): string | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 86_400 ? null : 'unlockDuration must be an integer from 1 to 86400 seconds';
}
