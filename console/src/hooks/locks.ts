import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { execute } from '../api/browser-key';
import { claimLock, findInvitee, getLock, waitingShares, linkTile, listLocks, listMembers, listSiteLocks, listSites, unlinkTile, updateLock } from '../api/endpoints';
import type { Body, Lock, LockChanges, Role, Site, UnlockBetween } from '../api/types';
import { useApi, useUserId } from './context';
import { queryKeys } from './query-keys';
import { navigate } from './router';

export function useLocks() {
  const api = useApi();
  // Live events cover the locks already listed; a lock newly shared with you appears within a minute (or on focus).
  return useQuery({ queryKey: queryKeys.locks(), queryFn: () => listLocks(api), refetchInterval: 60_000 });
}

/** Shares held until the user's email is verified (shown instead of "no locks"). */
export function useWaitingShares(enabled: boolean) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.waitingShares(), queryFn: () => waitingShares(api), enabled });
}

export function useLock(lockId: string) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.lock(lockId), queryFn: () => getLock(api, lockId) });
}

/** Which site each lock belongs to (GET /site, then each site's locks). */
export function useSiteOfLock() {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.sites(),
    queryFn: async () => {
      const sites = await listSites(api);
      const bySite = await Promise.all(sites.map(async (site) => [site, await listSiteLocks(api, site.id)] as const));
      const map = new Map<string, Site>();
      for (const [site, locks] of bySite) for (const lock of locks) map.set(lock.id, site);
      return map;
    },
  });
}

export function useClaimLock() {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Body<'/device', 'post'>) => claimLock(api, body),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: queryKeys.locks() }), client.invalidateQueries({ queryKey: queryKeys.sites() })]),
  });
}

/** PUT /device/{id}: name, colour, favourite, the caller's settings, requirements. */
export function useUpdateLock(lockId: string) {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (changes: LockChanges) => updateLock(api, lockId, changes),
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: queryKeys.lock(lockId) }), client.invalidateQueries({ queryKey: queryKeys.locks() })]),
  });
}

/** Links (or unlinks) a tile to the lock. */
export function useTileLink(lockId: string) {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ tileId, linked }: { tileId: string; linked: boolean }) => (linked ? linkTile : unlinkTile)(api, lockId, tileId),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.lock(lockId) }),
  });
}

/** Whether an unlock must carry the device's position: admins are exempt from usage requirements (decisions §4), as the service holds. */
function needsLocation(lock: Lock): boolean {
  if (lock.role === 'ADMIN') return false;
  const location = lock.settings.usageRequirements?.location;
  return !!location && location.enabled !== false;
}

/** The device's position for a lock with a location requirement (the operation carries it). */
function currentPosition(): Promise<{ latitude: number; longitude: number; accuracy: number }> {
  return new Promise((resolve, reject) => {
    if (!('geolocation' in navigator)) return reject(new Error('This lock needs your location, and this browser cannot give it.'));
    navigator.geolocation.getCurrentPosition(
      (p) => resolve({ latitude: p.coords.latitude, longitude: p.coords.longitude, accuracy: p.coords.accuracy }),
      (err) => reject(new Error(`This lock needs your location: ${err.message || 'permission denied'}. Allow location for this site and try again.`)),
      { enableHighAccuracy: true, timeout: 15_000, maximumAge: 30_000 },
    );
  });
}

/** Unlock (false) or lock (true), signed in this browser, with its position when the lock requires one. */
export function useOperateLock(lock: Lock) {
  const api = useApi();
  const userId = useUserId();
  return useMutation({
    mutationFn: async (locked: boolean) => {
      const location = needsLocation(lock) ? await currentPosition() : undefined;
      await execute(api, userId, lock.id, { type: 'MUTATE_LOCK', locked, ...(location ? { location } : {}) });
    },
  });
}

/** Settings the lock's admins sign in the browser (MUTATE_SETTING): unlock duration, unlock-between window. */
export function useSignedSettings(lockId: string) {
  const api = useApi();
  const userId = useUserId();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (settings: { unlockDuration: number; unlockBetween: UnlockBetween | null }) => execute(api, userId, lockId, { type: 'MUTATE_SETTING', ...settings }),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.lock(lockId) }),
  });
}

export function useMembers(lock: Lock) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.members(lock.id), queryFn: () => listMembers(api, lock.id), enabled: lock.role === 'ADMIN' });
}

/** Shares the lock with the person `email` names (ADD_USER, signed here), or changes the share of `userId` (the same operation). */
export function useShare(lockId: string) {
  const api = useApi();
  const me = useUserId();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (share: { email: string; userId?: string; role: Role; start: number | null; end: number | null }) => {
      const invitee = await findInvitee(api, share.email, lockId);
      await execute(api, me, lockId, { type: 'ADD_USER', user: share.userId ?? invitee.id, publicKey: invitee.publicKey, role: share.role, start: share.start, end: share.end });
    },
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.members(lockId) }),
  });
}

/** Revokes a member (REMOVE_USER, signed here); removing oneself leaves the lock and returns to the list. */
export function useRemoveMember(lockId: string) {
  const api = useApi();
  const me = useUserId();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) => execute(api, me, lockId, { type: 'REMOVE_USER', users: [userId] }),
    onSuccess: async (_answer, userId) => {
      if (userId !== me) return client.invalidateQueries({ queryKey: queryKeys.members(lockId) });
      await client.invalidateQueries({ queryKey: queryKeys.locks() });
      navigate('/');
    },
  });
}
