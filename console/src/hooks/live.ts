import { useQueryClient } from '@tanstack/preact-query';
import { useEffect } from 'preact/hooks';
import { followLocks } from '../api/events';
import type { LiveEntry, Lock } from '../api/types';
import { useApi, useLiveFeed } from './context';
import { queryKeys } from './query-keys';

/** Up to this many locks are followed on one stream (the service's limit per request). */
const MAX_FOLLOWED = 100;

/** Calls `listener` with each live audit entry of the signed-in user's locks while mounted. */
export function useLiveEntries(listener: (entry: LiveEntry) => void): void {
  const live = useLiveFeed();
  useEffect(() => live.subscribe(listener), [live, listener]);
}

/** Membership changes that change what the list of locks (or a lock's members) holds. */
const MEMBERSHIP = new Set(['LOCK_SHARED', 'LOCK_REVOKED', 'OWNER_ASSIGNED', 'USER_PROMOTED', 'USER_DEMOTED']);

/**
 * Follows GET /device/events for `lockIds` and writes each entry's lock state into the cached
 * lists, so `connected`/`locked` change on screen without a reload.
 */
export function useLiveLocks(lockIds: string[]): void {
  const api = useApi();
  const live = useLiveFeed();
  const client = useQueryClient();
  const key = [...lockIds].sort().slice(0, MAX_FOLLOWED).join(',');
  useEffect(() => {
    if (!key) return;
    return followLocks(api, key.split(','), (entry) => {
      if (entry.state) {
        const patch = (lock: Lock): Lock => (lock.id === entry.deviceId ? { ...lock, state: { ...lock.state, ...entry.state } } : lock);
        client.setQueryData<Lock[]>(queryKeys.locks(), (locks) => locks?.map(patch));
        client.setQueryData<Lock>(queryKeys.lock(entry.deviceId), (lock) => (lock ? patch(lock) : lock));
      }
      // A lock that comes online reports its state just after: read the list again for it.
      if (entry.type === 'DEVICE_CONNECTED') setTimeout(() => void client.invalidateQueries({ queryKey: queryKeys.locks() }), 1000);
      // Alarms and lockdowns: their lists are read again (the lock's lockdown flag came with the entry's state).
      if (entry.type.startsWith('ALARM_')) void client.invalidateQueries({ queryKey: queryKeys.alarms() });
      if (entry.type.startsWith('LOCKDOWN_')) void client.invalidateQueries({ queryKey: queryKeys.lockdowns() });
      if (MEMBERSHIP.has(entry.type)) {
        void client.invalidateQueries({ queryKey: queryKeys.locks() });
        void client.invalidateQueries({ queryKey: queryKeys.sites() });
        void client.invalidateQueries({ queryKey: queryKeys.members(entry.deviceId) });
      }
      live.publish(entry);
    }, () => void client.invalidateQueries({ queryKey: queryKeys.locks() }));
  }, [api, live, client, key]);
}
