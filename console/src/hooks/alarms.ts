import { useQuery } from '@tanstack/preact-query';
import { listAlarms } from '../api/endpoints';
import type { Alarm } from '../api/types';
import { useApi } from './context';
import { useLocks } from './locks';
import { queryKeys } from './query-keys';

/** Which alarms or lockdowns a list reads: a site's, a lock's, or every one the caller administers. */
export type Scope = { siteId?: string; lockId?: string };

/** How often an alarm list is read again besides the live ALARM_ entries (hooks/live.ts), which may be missed while the stream reconnects. */
const ALARMS_POLL_MS = 60_000;

/**
 * Open alarms and history: of every lock the caller administers, of a site's, or of one lock. One
 * key per scope (queryKeys.alarms) and one polling rule for every list, whoever reads it.
 */
export function useAlarmList(scope: Scope = {}, enabled = true) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.alarms(scope), queryFn: () => listAlarms(api, scope), enabled, refetchInterval: ALARMS_POLL_MS });
}

/**
 * The open alarms of every lock the caller administers (GET /alarms), by lock: what the list of
 * locks and a lock's page show first; the alarms page's own list of every lock is the same query.
 * A member who administers nothing asks nothing.
 */
export function useOpenAlarms(): ReadonlyMap<string, Alarm[]> {
  const administers = (useLocks().data ?? []).some((lock) => lock.role === 'ADMIN');
  const alarms = useAlarmList({}, administers);
  const byLock = new Map<string, Alarm[]>();
  for (const alarm of alarms.data?.open ?? []) byLock.set(alarm.lockId, [...(byLock.get(alarm.lockId) ?? []), alarm]);
  return byLock;
}
