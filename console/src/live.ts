import type { QueryClient } from '@tanstack/preact-query';
import { useEffect } from 'preact/hooks';
import { followLocks, type LiveEntry } from './events';
import type { Lock } from './types';

/** Up to this many locks are followed on one stream (the service's limit per request). */
const MAX_FOLLOWED = 100;
const subscribers = new Set<(entry: LiveEntry) => void>();

/** Calls `listener` with each live audit entry of the signed-in user's locks while mounted. */
export function useLiveEntries(listener: (entry: LiveEntry) => void): void {
  useEffect(() => {
    subscribers.add(listener);
    return () => void subscribers.delete(listener);
  }, [listener]);
}

/** Membership changes that change what the list of locks (or a lock's members) holds. */
const MEMBERSHIP = new Set(['LOCK_SHARED', 'LOCK_REVOKED', 'OWNER_ASSIGNED', 'USER_PROMOTED', 'USER_DEMOTED']);

/**
 * Follows GET /device/events for `lockIds` and writes each entry's lock state into the cached
 * lists, so `connected`/`locked` change on screen without a reload.
 */
export function useLiveLocks(client: QueryClient, lockIds: string[]): void {
  const key = [...lockIds].sort().slice(0, MAX_FOLLOWED).join(',');
  useEffect(() => {
    if (!key) return;
    return followLocks(key.split(','), (entry) => {
      if (entry.state) {
        const patch = (lock: Lock): Lock => (lock.id === entry.deviceId ? { ...lock, state: { ...lock.state, ...entry.state } } : lock);
        client.setQueryData<Lock[]>(['locks'], (locks) => locks?.map(patch));
        client.setQueryData<Lock>(['lock', entry.deviceId], (lock) => (lock ? patch(lock) : lock));
      }
      // A lock that comes online reports its state just after: read the list again for it.
      if (entry.type === 'DEVICE_CONNECTED') setTimeout(() => void client.invalidateQueries({ queryKey: ['locks'] }), 1000);
      if (MEMBERSHIP.has(entry.type)) {
        void client.invalidateQueries({ queryKey: ['locks'] });
        void client.invalidateQueries({ queryKey: ['sites'] });
        void client.invalidateQueries({ queryKey: ['members', entry.deviceId] });
      }
      for (const listener of subscribers) listener(entry);
    }, () => void client.invalidateQueries({ queryKey: ['locks'] }));
  }, [client, key]);
}
