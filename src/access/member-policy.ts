import { errors, type AppError } from '../errors/catalogue.js';
import { isAddressPermitted } from './addresses.js';
import { meetsLocationRequirement } from './location.js';
import { meetsTimeRequirements } from './time-window.js';
import type { Member, OperationLocation, UsageRequirements } from './types.js';

/**
 * Who may use and manage a lock (decisions §4 permissions, §5 reads): unlocking, settings, admin
 * reads; who may share what builds on these in src/sharing/policy.ts. Pure: every fact comes in as
 * an argument and `now` is Unix seconds. Results are small values rather than exceptions so each
 * branch is easy to test; `assertAllowed` turns a refusal into the catalogue's AppError.
 *
 * Functions with an optional `now` also require the member to be inside its start/end window
 * when it is given; signed operations pass it, so an ADMIN whose access has ended manages nothing.
 */

export type Denied = { allowed: false; status: 403 | 409; reason: string; error?: 'last_admin' };
export type Allowed = { allowed: true };
export type Decision = Allowed | Denied;

const forbidden = (reason: string): Denied => ({ allowed: false, status: 403, reason });
const ALLOWED: Allowed = { allowed: true };

/** A member's role and window (and own weekly hours), as the rules read them. */
export type Enrolment = Pick<Member, 'role' | 'schedule'> & { start?: number | null; end?: number | null };

/** Inside the member's window: from `start` (inclusive; null/absent = always) to `end` (exclusive; null/absent = never). */
export function isMemberActive(member: Pick<Member, 'start' | 'end'> | { start?: number | null; end?: number | null }, now: number): boolean {
  return (member.start == null || now >= member.start) && (member.end == null || now < member.end);
}

function windowRefusal(member: Enrolment, now: number): Denied | null {
  if (member.start != null && now < member.start) return forbidden('access has not started yet');
  if (member.end != null && now >= member.end) return forbidden('access has ended');
  return null;
}

/** An ADMIN, inside their window when `now` is given: what managing a lock takes (settings, members, admin reads). */
export function adminOnly(member: Enrolment, now: number | undefined): Decision {
  if (member.role !== 'ADMIN') return forbidden('admin role required');
  return (now === undefined ? null : windowRefusal(member, now)) ?? ALLOWED;
}

export interface UnlockRequest {
  member: Enrolment;
  requirements?: UsageRequirements | null;
  permittedAddresses?: readonly string[] | null;
  callerIp: string | null | undefined;
  location?: Partial<OperationLocation> | null;
  /** The operation's own unlock duration (seconds), if it asks for one. */
  duration?: number | null;
  /** The lock's unlock duration (seconds): the longest a USER may ask for. */
  unlockDuration?: number;
  now: number;
}

/**
 * MUTATE_LOCK: the member's window and own weekly hours (a share's `schedule`) apply to everyone,
 * permitted addresses to everyone, usage requirements (time, location) to USERs only: an ADMIN
 * is exempt from them. A USER may ask for a shorter unlock than the lock's, never a longer one
 * (the unlock duration is an ADMIN setting).
 */
export function canUnlock(request: UnlockRequest): Decision {
  const { member, requirements, now } = request;
  const refusal = windowRefusal(member, now);
  if (refusal !== null) return refusal;
  if (!isWithinSchedule(member, now)) return forbidden("outside the share's weekly hours");
  if (!isAddressPermitted(request.permittedAddresses ?? [], request.callerIp)) return forbidden('caller address not permitted');
  if (member.role === 'ADMIN') return ALLOWED;
  if (request.unlockDuration !== undefined && !mayUnlockFor(member, request.duration, request.unlockDuration)) {
    return forbidden('a USER may not unlock for longer than the lock\'s unlock duration');
  }
  if (!meetsTimeRequirements(requirements?.time, now)) return forbidden('outside permitted times');
  const location = meetsLocationRequirement(requirements?.location, request.location);
  return location.ok ? ALLOWED : forbidden(location.reason);
}

/**
 * Inside the share's own weekly hours (none: always). The lock applies the same rule to the
 * config it holds (src/lock-edge/command-check.ts).
 */
export function isWithinSchedule(member: Pick<Enrolment, 'schedule'>, now: number): boolean {
  return member.schedule == null || meetsTimeRequirements(member.schedule, now);
}

/**
 * Whether a member may ask for an unlock of `duration` seconds (absent: the lock's own): a USER
 * for the lock's unlock duration or less, an ADMIN (who sets it) for any. The lock applies the
 * same rule to the config it holds (src/lock-edge/command-check.ts).
 */
export function mayUnlockFor(member: Pick<Member, 'role'>, duration: number | null | undefined, unlockDuration: number): boolean {
  return member.role === 'ADMIN' || duration == null || duration <= unlockDuration;
}

/** MUTATE_SETTING and the `settings` part of PUT /device/{id}. */
export function canChangeSettings(member: Enrolment, now?: number): Decision {
  return adminOnly(member, now);
}

/** The lock's users list and the lock's audit trail: 403 for a USER (a non-member gets 404 before this). */
export function canReadAdminData(member: Enrolment, now?: number): Decision {
  return adminOnly(member, now);
}

/** The AppError a refusal is answered with. */
export function refusalError(denied: Denied): AppError {
  if (denied.status === 409) return denied.error === 'last_admin' ? errors.lastAdmin() : errors.conflict(denied.reason);
  return errors.forbidden(denied.reason);
}

/** Throws the catalogue's AppError for a refusal; narrows `result` to its allowed form otherwise. */
export function assertAllowed<T extends Allowed>(result: T | Denied): asserts result is T {
  if (!result.allowed) throw refusalError(result);
}
