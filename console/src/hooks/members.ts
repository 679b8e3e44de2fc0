import { useQueries } from '@tanstack/preact-query';
import { listMembers } from '../api/endpoints';
import type { Member } from '../api/types';
import { useApi } from './context';
import { queryKeys } from './query-keys';

/**
 * The members of several locks at once (each lock's GET /device/{id}/users, cached per lock under
 * the key the lock page's member list uses): what the keypad code and lockdown forms choose people
 * from. Only members the lock knows: not an orphan, not a share still waiting for a verified email.
 */

function useMemberLists(lockIds: readonly string[]): { lists: Member[][] | undefined; error: unknown } {
  const api = useApi();
  const results = useQueries({ queries: lockIds.map((lockId) => ({ queryKey: queryKeys.members(lockId), queryFn: () => listMembers(api, lockId) })) });
  const error = results.find((r) => r.error)?.error ?? null;
  if (results.length === 0 || results.some((r) => !r.data)) return { lists: undefined, error };
  return { lists: results.map((r) => r.data!.filter((m) => !m.orphan && !m.pending)), error };
}

/** The members of every one of `lockIds` (a member's keypad code needs them on each lock it is on). */
export function useCommonMembers(lockIds: readonly string[]): Member[] {
  const { lists } = useMemberLists(lockIds);
  if (!lists) return [];
  const [first, ...rest] = lists;
  return first!.filter((m) => rest.every((members) => members.some((o) => o.userId === m.userId)));
}

/** Everyone who is a member of at least one of `lockIds`, each once with how many of them they are on (`people` undefined while loading). */
export function useMembersOfAny(lockIds: readonly string[]): { people: Array<{ member: Member; doors: number }> | undefined; error: unknown } {
  const { lists, error } = useMemberLists(lockIds);
  if (!lists) return { people: undefined, error };
  const people = new Map<string, { member: Member; doors: number }>();
  for (const member of lists.flat()) people.set(member.userId, { member, doors: (people.get(member.userId)?.doors ?? 0) + 1 });
  return { people: [...people.values()].sort((a, b) => memberName(a.member).localeCompare(memberName(b.member))), error };
}

/** A member as the forms name them: display name and email, else whichever is known. */
export function memberName(m: Member): string {
  return m.displayName ? `${m.displayName}${m.email ? ` (${m.email})` : ''}` : (m.email ?? m.userId);
}
