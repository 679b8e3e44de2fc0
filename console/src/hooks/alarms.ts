import { useQuery } from '@tanstack/preact-query';
import { listAlarms } from '../api/endpoints';
import type { Alarm } from '../api/types';
import { useApi } from './context';
import { useLocks } from './locks';
import { queryKeys } from './query-keys';

/**
 * The open alarms of every lock the caller administers (GET /alarms), by lock: what the list of
 * locks and a lock's page show first. Read again on each live ALARM_ entry (hooks/live.ts); a
 * member who administers nothing asks nothing.
 */
export function useOpenAlarms(): ReadonlyMap<string, Alarm[]> {
  const api = useApi();
  const administers = (useLocks().data ?? []).some((lock) => lock.role === 'ADMIN');
  const alarms = useQuery({ queryKey: queryKeys.alarms(), queryFn: () => listAlarms(api), enabled: administers, refetchInterval: 60_000 });
  const byLock = new Map<string, Alarm[]>();
  for (const alarm of alarms.data?.open ?? []) byLock.set(alarm.lockId, [...(byLock.get(alarm.lockId) ?? []), alarm]);
  return byLock;
}
