import { keepPreviousData, useQuery, type UseQueryResult } from '@tanstack/preact-query';
import { lockLog, userLog } from '../api/endpoints';
import { shownKey, type ShownEntry } from '../api/shown-entry';
import type { Verification } from '../api/audit-proof';
import { useApi } from './context';
import { queryKeys } from './query-keys';

/** While an entry waits for the next checkpoint (signed within about a second), check again this often. */
const PENDING_RECHECK_MS = 2000;

/** A lock's trail in the period (Unix seconds; null for open-ended). */
export function useLockLog(lockId: string, start: number | null, end: number | null) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.lockLog(lockId, start, end), queryFn: () => lockLog(api, lockId, start, end) });
}

/** A user's trail across locks in the period. */
export function useUserLog(userId: string, start: number | null, end: number | null) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.userLog(userId, start, end), queryFn: () => userLog(api, userId, start, end) });
}

/**
 * Checks the shown entries against the signed audit log in this browser (../api/audit-proof,
 * loaded on demand). `readable`: the locks whose proofs the viewer may read (their admins);
 * `scope` names the page, `end` its upper time filter. Checks again while an entry waits for a checkpoint.
 */
export function useVerification(entries: ShownEntry[], readable: Set<string>, scope: string, end: number | null, ready = true): UseQueryResult<Verification> {
  const api = useApi();
  const newest = entries[0] ? shownKey(entries[0]) : '';
  return useQuery({
    queryKey: queryKeys.verification(scope, end, entries.length, newest, [...readable].sort().join(',')),
    queryFn: async () => (await import('../api/audit-proof')).verifyShown(api, entries, readable, end ?? undefined),
    enabled: ready && entries.length > 0,
    placeholderData: keepPreviousData,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
    refetchInterval: (query) => {
      const pending = [...(query.state.data?.checks.values() ?? [])].some((c) => c.status === 'pending');
      // Slower after a minute: a service signing rarely (AUDIT_CHECKPOINT_INTERVAL_MS) need not be asked every two seconds.
      return pending ? (query.state.dataUpdateCount < 30 ? PENDING_RECHECK_MS : 30 * PENDING_RECHECK_MS) : false;
    },
  });
}
