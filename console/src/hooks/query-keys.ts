/**
 * Every query key of the console comes from this one factory (test/console/layout.unit.test.ts
 * checks that no other file writes one out), so a key read and a key invalidated cannot drift.
 */
export const queryKeys = {
  locks: () => ['locks'] as const,
  lock: (lockId: string) => ['lock', lockId] as const,
  sites: () => ['sites'] as const,
  ownSites: () => ['sites', 'mine'] as const,
  waitingShares: () => ['waiting-shares'] as const,
  doorsFeed: (lockIds: readonly string[]) => ['doors-feed', ...lockIds] as const,
  members: (lockId: string) => ['members', lockId] as const,
  codes: (lockId: string) => ['codes', lockId] as const,
  /** Every alarm list starts with 'alarms' (invalidated together on a live ALARM_ entry). */
  alarms: (scope: { siteId?: string; lockId?: string } = {}) => (scope.lockId ? ['alarms', 'lock', scope.lockId] : scope.siteId ? ['alarms', 'site', scope.siteId] : ['alarms']) as readonly string[],
  alarmSettings: (lockId: string) => ['alarm-settings', lockId] as const,
  /** Every lockdown list starts with 'lockdowns'. */
  lockdowns: (scope: { siteId?: string; lockId?: string } = {}) => (scope.lockId ? ['lockdowns', 'lock', scope.lockId] : scope.siteId ? ['lockdowns', 'site', scope.siteId] : ['lockdowns']) as readonly string[],
  account: () => ['account'] as const,
  browserKey: (userId: string) => ['key', userId] as const,
  applications: () => ['apps'] as const,
  webhooks: () => ['webhooks'] as const,
  webhookDeliveries: (id: string) => ['webhooks', id, 'deliveries'] as const,
  application: (id: string) => ['app', id] as const,
  lockLog: (lockId: string, start: number | null, end: number | null) => ['log', lockId, start, end] as const,
  userLog: (userId: string, start: number | null, end: number | null) => ['userlog', userId, start, end] as const,
  verification: (scope: string, end: number | null, count: number, newest: string, readable: string) => ['verify', scope, end, count, newest, readable] as const,
};
