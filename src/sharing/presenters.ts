import type { TimeRequirement } from '../access/types.js';
import { DIRECT_NAMESPACE } from '../accounts/queries.js';
import { readSchedule } from '../locks/json.js';
import type { LockUserRow } from './queries.js';
import type { LockUserResponse, UserWithLocksResponse } from './schemas.js';
import type { UserWithLocks } from './users.js';

/** A lock's users and a user's enrolments as administrators see them. */

export function presentLockUser(row: LockUserRow & { pending: boolean }): LockUserResponse {
  return {
    userId: row.user_id,
    email: row.email,
    publicKey: row.public_key ?? row.certified_key,
    displayName: row.display_name,
    orphan: row.orphan === 1,
    foreign: row.namespace !== DIRECT_NAMESPACE,
    role: row.role,
    start: row.starts_at,
    end: row.ends_at,
    pending: row.pending,
    ...optionalSchedule(readSchedule(row.schedule)),
  };
}

const optionalSchedule = (schedule: TimeRequirement[] | null) => (schedule === null ? {} : { schedule });

export function presentUserWithLocks({ user, devices, certifiedKey }: UserWithLocks): UserWithLocksResponse {
  return {
    userId: user.id,
    email: user.email,
    publicKey: user.public_key ?? certifiedKey,
    displayName: user.display_name,
    orphan: user.orphan === 1,
    foreign: user.namespace !== DIRECT_NAMESPACE,
    devices: devices.map((d) => ({ deviceId: d.lock_id, role: d.role, start: d.starts_at, end: d.ends_at, pending: d.pending })),
  };
}
