import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { execute } from '../api/browser-key';
import { claimLock, createSite, findInvitee, getLock, listOwnSites, placeLock, updateSite, waitingShares, linkTile, listLocks, listMembers, listSiteLocks, listSites, unlinkTile, updateLock } from '../api/endpoints';
import type { ApiClient } from '../api/client';
import type { Body, Hours, Lock, LockChanges, Role, Site, UnlockBetween } from '../api/types';
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

/** Each lock's name, by id, as the caller calls it (the id until the list is read). */
export function useLockNames(): (lockId: string) => string {
  const locks = useLocks();
  const names = new Map((locks.data ?? []).map((lock) => [lock.id, lock.name]));
  return (lockId) => names.get(lockId) ?? lockId;
}

/** The locks the caller administers, by site (by the site's name; those without one last, `site` undefined), with what reading them failed with. */
export function useAdministeredBySite() {
  const locks = useLocks();
  const sites = useSiteOfLock();
  const groups = new Map<string, { site: Site | undefined; locks: Lock[] }>();
  for (const lock of (locks.data ?? []).filter((l) => l.role === 'ADMIN')) {
    const site = sites.data?.get(lock.id);
    const key = site?.id ?? '';
    if (!groups.has(key)) groups.set(key, { site, locks: [] });
    groups.get(key)!.locks.push(lock);
  }
  const bySite = [...groups.values()].sort((a, b) => (a.site && b.site ? a.site.name.localeCompare(b.site.name) : Number(!a.site) - Number(!b.site)));
  return { groups: bySite, error: locks.error ?? sites.error, loaded: locks.isSuccess };
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

/** A share to make: the person (by email, or `userId` for a member already known), role, window and weekly hours. */
export interface ShareRequest {
  email: string;
  userId?: string;
  role: Role;
  start: number | null;
  end: number | null;
  /** The share's own weekly hours; null clears them; absent leaves them as they are. */
  schedule?: Hours[] | null;
}

/**
 * Shares each lock with one person: one ADD_USER signed here per lock (each lock checks its own).
 * Every lock is tried; those refused are named in the error, the others stay shared.
 */
async function shareEach(api: ApiClient, me: string, lockIds: readonly string[], share: ShareRequest, nameOf: (lockId: string) => string): Promise<void> {
  const refused: string[] = [];
  for (const lockId of lockIds) {
    try {
      const invitee = await findInvitee(api, share.email, lockId);
      const schedule = share.schedule === undefined ? {} : { schedule: share.schedule };
      await execute(api, me, lockId, { type: 'ADD_USER', user: share.userId ?? invitee.id, publicKey: invitee.publicKey, role: share.role, start: share.start, end: share.end, ...schedule });
    } catch (err) {
      if (lockIds.length === 1) throw err;
      refused.push(`${nameOf(lockId)}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (refused.length > 0) throw new Error(`Not shared on ${refused.length} of ${lockIds.length} doors. ${refused.join(' ')}`);
}

/** Shares the lock with the person `email` names (ADD_USER, signed here), or changes the share of `userId` (the same operation). */
export function useShare(lockId: string) {
  return useShareToLocks([lockId]);
}

/** Shares several locks (or a whole site's) with one person in one step. */
export function useShareToLocks(lockIds: readonly string[], nameOf: (lockId: string) => string = (id) => id) {
  const api = useApi();
  const me = useUserId();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (share: ShareRequest) => shareEach(api, me, lockIds, share, nameOf),
    onSettled: () => Promise.all(lockIds.map((lockId) => client.invalidateQueries({ queryKey: queryKeys.members(lockId) }))),
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

/** The sites the caller made (GET /site/mine). */
export function useOwnSites() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.ownSites(), queryFn: () => listOwnSites(api) });
}

/** Making, renaming and filling one's own sites; every list of sites is read again after. */
export function useSiteChanges() {
  const api = useApi();
  const client = useQueryClient();
  // queryKeys.sites() is the prefix of ownSites(): both lists are read again.
  const refresh = () => Promise.all([client.invalidateQueries({ queryKey: queryKeys.sites() }), client.invalidateQueries({ queryKey: queryKeys.locks() })]);
  return {
    create: useMutation({ mutationFn: (name: string) => createSite(api, { name }), onSuccess: refresh }),
    rename: useMutation({ mutationFn: ({ siteId, name }: { siteId: string; name: string }) => updateSite(api, siteId, { name }), onSuccess: refresh }),
    place: useMutation({ mutationFn: ({ siteId, lockId, inSite }: { siteId: string; lockId: string; inSite: boolean }) => placeLock(api, siteId, lockId, inSite), onSuccess: refresh }),
  };
}
