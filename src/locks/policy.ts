import { parsePermittedAddresses } from '../access/addresses.js';
import { canChangeSettings, type Decision, type Enrolment } from '../access/member-policy.js';

/**
 * Lock-specific rules on top of src/access/member-policy.ts, pure and unit-tested
 * (test/locks/policy.unit.test.ts). `now` is Unix seconds: an ADMIN outside their start/end
 * window administers nothing (decisions §4). Who may share what is src/sharing/policy.ts's.
 */

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

/**
 * POST /device/{id}/decommission: the lock's owner (the member who claimed it) while an active
 * ADMIN; once the owner has left (no owner), any active ADMIN.
 */
export function canDecommission(member: Enrolment, callerIsOwner: boolean, lockHasOwner: boolean, now: number): Decision {
  const admin = canChangeSettings(member, now);
  if (!admin.allowed) return admin;
  return callerIsOwner || !lockHasOwner ? { allowed: true } : { allowed: false, status: 403, reason: 'only the lock\'s owner may decommission it' };
}

/** Linking and unlinking tiles: an active ADMIN of the lock. */
export function canManageTiles(member: Enrolment, now: number): Decision {
  return canChangeSettings(member, now);
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
