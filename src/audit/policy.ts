export type UserLogScope = 'all' | 'administered' | 'not_found';

/**
 * A user's log: the user sees all of it; an admin of one of their locks sees the entries on the
 * locks the admin administers; anyone else gets 404. (The lock log's rule is the shared
 * `canReadAdminData` of src/access/member-policy.ts.)
 */
export function userLogScope(callerId: string, userId: string, administersOne: boolean): UserLogScope {
  if (callerId === userId) return 'all';
  return administersOne ? 'administered' : 'not_found';
}
