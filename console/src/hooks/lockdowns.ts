import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { signAndSend } from '../api/browser-key';
import { getAlarmSettings, listLockdowns, putAlarmSettings, submitLockdown } from '../api/alarm-endpoints';
import type { AlarmSettingsChange } from '../api/types';
import { useApi, useUserId } from './context';
import { queryKeys } from './query-keys';
import type { Scope } from './alarms';

/** The alarms pages' lockdown and settings queries and mutations (loaded with them, not on the first load); their alarm lists: hooks/alarms.ts. */

export function useAlarmSettings(lockId: string) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.alarmSettings(lockId), queryFn: () => getAlarmSettings(api, lockId) });
}

export function useSaveAlarmSettings(lockId: string) {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (change: AlarmSettingsChange) => putAlarmSettings(api, lockId, change),
    onSuccess: (settings) => client.setQueryData(queryKeys.alarmSettings(lockId), settings),
  });
}

/** The lockdowns holding on the caller's locks (of a site, or one lock); read again on each live LOCKDOWN_ entry. */
export function useLockdowns(scope: Scope = {}) {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.lockdowns(scope), queryFn: async () => (await listLockdowns(api, scope)).lockdowns });
}

function useLockdownOperation<T>(operation: (input: T, me: string) => { sub: string; body: { type: string } & Record<string, unknown> }) {
  const api = useApi();
  const me = useUserId();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: T) => {
      const { sub, body } = operation(input, me);
      return signAndSend(api, me, sub, body, (token) => submitLockdown(api, token));
    },
    onSettled: () => Promise.all([client.invalidateQueries({ queryKey: queryKeys.lockdowns() }), client.invalidateQueries({ queryKey: queryKeys.locks() })]),
  });
}

/**
 * Declares a lockdown of `lockIds`, signed in this browser: one LOCKDOWN whose `sub` names the
 * lock, the site of them all, or the signer (src/operations/lockdown.ts); each lock checks it itself,
 * and carries out only the unlocks of its `responders` (user ids) until it is lifted.
 */
export function useDeclareLockdown() {
  return useLockdownOperation((input: { sub: string; lockIds: string[]; quorum: number; responders: string[] }) => ({
    sub: input.sub,
    body: { type: 'LOCKDOWN', lockdownId: crypto.randomUUID(), locks: input.lockIds, responders: input.responders, liftQuorum: input.quorum },
  }));
}

/** This administrator's own LIFT_LOCKDOWN of the locks they administer under `lockdownId` (`sub`: themselves, for all their locks). */
export function useLiftLockdown() {
  return useLockdownOperation((input: { lockdownId: string; lockIds: string[] }, me) => ({
    sub: me,
    body: { type: 'LIFT_LOCKDOWN', lockdownId: input.lockdownId, locks: input.lockIds },
  }));
}
