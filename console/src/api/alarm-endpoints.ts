import type { ApiClient } from './client';
import type { AlarmSettings, AlarmSettingsChange, Reply } from './types';

/**
 * The endpoints only the alarms pages call (pages/alarms, loaded on demand): apart from
 * endpoints.ts so that the first load does not carry them.
 */

const device = (lockId: string, rest: string) => `/device/${encodeURIComponent(lockId)}${rest}`;

export const getAlarmSettings = (api: ApiClient, lockId: string) => api.request<AlarmSettings>('GET', device(lockId, '/alarm-settings'));
export const putAlarmSettings = (api: ApiClient, lockId: string, body: AlarmSettingsChange) => api.request<AlarmSettings>('PUT', device(lockId, '/alarm-settings'), { body });
export const listLockdowns = (api: ApiClient, query: { siteId?: string; lockId?: string }) =>
  api.request<Reply<'/lockdowns', 'get'>>('GET', `/lockdowns?${new URLSearchParams(query as Record<string, string>)}`);
/** POST /lockdown with a signed LOCKDOWN or LIFT_LOCKDOWN (a compact JWS). */
export const submitLockdown = (api: ApiClient, token: string) => api.request<Reply<'/lockdown', 'post'>>('POST', '/lockdown', { raw: token });
