import { readPermittedAddresses, readUnlockBetween, readUsageRequirements } from './json.js';
import type { MemberLock } from './queries.js';
import { LOCK_CAPABILITIES } from '../device-protocol/payloads.js';
import { SETTINGS_CAPABILITIES } from './capabilities.js';
import { DEFAULT_LOCATION_ACCURACY, DEFAULT_LOCATION_RADIUS, type UsageRequirements } from '../access/types.js';
import type { LockResponse, SiteLockResponse, UsageRequirementsResponse } from './schemas.js';

/** Shown when neither the member nor the lock's site chose a colour (the service's primary colour). */
export const DEFAULT_LOCK_COLOUR = '#00283C';

/** The name a member sees: their own alias, else the lock's default name, else its provisioned name. */
export function displayName(lock: Pick<MemberLock, 'default_name' | 'name' | 'member'>): string {
  return lock.member.alias ?? defaultName(lock);
}

export function defaultName(lock: Pick<MemberLock, 'default_name' | 'name'>): string {
  return lock.default_name ?? lock.name;
}

function colourOf(lock: MemberLock): string {
  return lock.member.colour ?? lock.site_colour ?? DEFAULT_LOCK_COLOUR;
}

/** `locked` is absent while the lock has never reported its state. */
function lockedState(lock: MemberLock): { locked?: boolean } {
  return lock.locked === null ? {} : { locked: lock.locked === 1 };
}

/** The health a lock reported (device protocol 1.2), each absent until it reports it. */
function reportedHealth(lock: MemberLock): Pick<LockResponse['state'], 'doorOpen' | 'battery' | 'jammed' | 'tamper'> {
  return {
    ...(lock.door_open === null ? {} : { doorOpen: lock.door_open === 1 }),
    ...(lock.battery === null ? {} : { battery: lock.battery }),
    ...(lock.jammed === null ? {} : { jammed: lock.jammed === 1 }),
    ...(lock.tamper === null ? {} : { tamper: lock.tamper === 1 }),
  };
}

/** What the lock says it is; absent until it says (a lock of protocol 1.1 never does). */
function deviceOf(lock: MemberLock): Pick<LockResponse, 'device'> {
  if (lock.device_kind === null) return {};
  const named = new Set((lock.device_capabilities ?? '').split(','));
  return { device: { kind: lock.device_kind, capabilities: LOCK_CAPABILITIES.filter((capability) => named.has(capability)) } };
}

/** The LAN addresses members may use: those the lock announces, while its owner allows it (issue 28 point 3). */
export function directAccessEndpoints(lock: Pick<MemberLock, 'direct_access' | 'direct_access_endpoints'>): string[] {
  if (lock.direct_access !== 1 || lock.direct_access_endpoints === null) return [];
  try {
    const endpoints: unknown = JSON.parse(lock.direct_access_endpoints);
    return Array.isArray(endpoints) ? endpoints.filter((endpoint): endpoint is string => typeof endpoint === 'string') : [];
  } catch {
    return [];
  }
}

/** Whole metres, at least 1 (the SDK reads radius and accuracy as integers). */
function wholeMetres(value: number | undefined, fallback: number): number {
  return value === undefined ? fallback : Math.max(1, Math.round(value));
}

/**
 * Stored requirements with a location's defaults written out (`enabled` absent means enabled). A
 * USER is told whether a location rule applies (`locationRequired`), never where its centre is
 * (issue 27 point 11): the rule is attested by the client, and the centre is the admin's to know.
 */
export function presentUsageRequirements(text: string, role: MemberLock['member']['role']): UsageRequirementsResponse {
  const stored: UsageRequirements = readUsageRequirements(text);
  if (stored.location === undefined) return stored as UsageRequirementsResponse;
  const { latitude, longitude, enabled, radius, accuracy } = stored.location;
  const time = stored.time !== undefined ? { time: stored.time } : {};
  if (role !== 'ADMIN') return { ...time, locationRequired: enabled ?? true };
  return {
    ...time,
    location: { latitude, longitude, enabled: enabled ?? true, radius: wholeMetres(radius, DEFAULT_LOCATION_RADIUS), accuracy: wholeMetres(accuracy, DEFAULT_LOCATION_ACCURACY) },
  };
}

/** The full Lock of GET /device and GET /device/{id}, with the ids of the tiles that open it. */
export function presentLock(lock: MemberLock, tiles: readonly string[]): LockResponse {
  return {
    id: lock.id,
    name: displayName(lock),
    // The spec types lastOperation as a number: before any operation, the claim is the last one.
    lastOperation: lock.last_operation ?? lock.claimed_at ?? lock.created,
    colour: colourOf(lock),
    role: lock.member.role,
    settings: {
      txBeaconRssi: lock.tx_beacon_rssi,
      rxBeaconRssi: lock.rx_beacon_rssi,
      unlockTime: lock.unlock_time,
      proximityUnlock: lock.proximity_unlock === 1,
      permittedAddresses: readPermittedAddresses(lock.permitted_addresses),
      defaultName: defaultName(lock),
      usageRequirements: presentUsageRequirements(lock.usage_requirements, lock.member.role),
      delay: lock.delay,
      unlockBetweenWindow: readUnlockBetween(lock.unlock_between),
      tiles: [...tiles],
      hidden: lock.member.hidden,
      capabilities: SETTINGS_CAPABILITIES,
      directAccess: lock.direct_access === 1,
      directAccessEndpoints: directAccessEndpoints(lock),
    },
    state: { ...lockedState(lock), connected: lock.connected === 1, duration: lock.unlock_time, ...reportedHealth(lock) },
    ...deviceOf(lock),
    favourite: lock.member.favourite,
    unlockTime: lock.unlock_time,
    // Latchkey has no "stay unlocked until told otherwise" mode; the unlock-between window covers schedules.
    unlockForever: false,
    start: lock.member.start,
    end: lock.member.end,
    ...(lock.member.schedule === null ? {} : { schedule: lock.member.schedule }),
  };
}

/** The shorter entry of the site lock list and the pinned locks. */
export function presentSiteLock(lock: MemberLock, tiles: readonly string[]): SiteLockResponse {
  return {
    id: lock.id,
    name: displayName(lock),
    colour: colourOf(lock),
    start: lock.member.start,
    end: lock.member.end,
    role: lock.member.role,
    settings: {
      unlockTime: lock.unlock_time,
      permittedAddresses: readPermittedAddresses(lock.permitted_addresses),
      defaultName: defaultName(lock),
      usageRequirements: presentUsageRequirements(lock.usage_requirements, lock.member.role),
      unlockBetweenWindow: readUnlockBetween(lock.unlock_between),
      tiles: [...tiles],
      hidden: lock.member.hidden,
      capabilities: SETTINGS_CAPABILITIES,
      directAccessEndpoints: directAccessEndpoints(lock),
    },
    state: { connected: lock.connected === 1, ...lockedState(lock) },
    favourite: lock.member.favourite,
  };
}
