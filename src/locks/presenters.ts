import type { MemberLock } from './queries.js';
import { LOCK_JSON, presenterOf } from './lock-json.js';
import { LockResponse, SiteLockResponse } from './schemas.js';

/** The name a member sees: their own alias, else the lock's default name, else its provisioned name. */
export function displayName(lock: Pick<MemberLock, 'default_name' | 'name' | 'member'>): string {
  return lock.member.alias ?? defaultName(lock);
}

export function defaultName(lock: Pick<MemberLock, 'default_name' | 'name'>): string {
  return lock.default_name ?? lock.name;
}

/**
 * The full Lock of GET /device/{id} and POST /device, with the ids of the tiles that open it: made
 * from the lock's one description (src/locks/lock-json.ts), as GET /device's SQL is.
 */
export const presentLock = presenterOf<LockResponse>(LOCK_JSON, LockResponse);

/** The shorter entry of the site lock list and the pinned locks: the same description, the keys of its own schema. */
export const presentSiteLock = presenterOf<SiteLockResponse>(LOCK_JSON, SiteLockResponse);

