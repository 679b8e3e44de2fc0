import type { AuditType } from '../audit/types.js';

/**
 * The event types a webhook endpoint subscribes to (issue 32), named as Standard Webhooks
 * suggests (`<group>.<event>`), each from the audit entries it stands for. A refused attempt of
 * any kind is `access.refused`, whatever it attempted (its entry says what).
 */
export const WEBHOOK_EVENT_TYPES = [
  'door.unlocked',
  'door.locked',
  'door.opened',
  'door.closed',
  'access.refused',
  'access.shared',
  'access.revoked',
  'member.promoted',
  'member.demoted',
  'lock.online',
  'lock.offline',
  'lock.claimed',
  'lock.settings_changed',
  'lock.decommissioned',
  'tile.linked',
  'tile.unlinked',
  'alarm.raised',
  'alarm.cleared',
  'code.added',
  'code.changed',
  'code.removed',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Sent on request (POST /webhook/{id}/test), whatever the endpoint subscribes to; carries no audit entry. */
export const TEST_EVENT_TYPE = 'webhook.test';

const FROM_AUDIT: Record<AuditType, WebhookEventType> = {
  DOOR_UNLOCK: 'door.unlocked',
  DOOR_LOCK: 'door.locked',
  DOOR_OPEN: 'door.opened',
  DOOR_CLOSE: 'door.closed',
  LOCK_SHARED: 'access.shared',
  LOCK_REVOKED: 'access.revoked',
  USER_PROMOTED: 'member.promoted',
  USER_DEMOTED: 'member.demoted',
  DEVICE_CONNECTED: 'lock.online',
  DEVICE_DISCONNECTED: 'lock.offline',
  OWNER_ASSIGNED: 'lock.claimed',
  SETTING_CHANGED: 'lock.settings_changed',
  DEVICE_DECOMMISSIONED: 'lock.decommissioned',
  TILE_ASSOCIATED: 'tile.linked',
  TILE_DISASSOCIATED: 'tile.unlinked',
  ALARM_RAISED: 'alarm.raised',
  ALARM_CLEARED: 'alarm.cleared',
  CODE_ADDED: 'code.added',
  CODE_CHANGED: 'code.changed',
  CODE_REMOVED: 'code.removed',
  // A lockdown changes what the lock's config makes it do (issue 31 point 3); its entry's type says which step.
  LOCKDOWN_DECLARED: 'lock.settings_changed',
  LOCKDOWN_LIFT_SIGNED: 'lock.settings_changed',
  LOCKDOWN_LIFTED: 'lock.settings_changed',
  LOCKDOWN_REPORTED: 'lock.settings_changed',
};

/** The event an audit entry stands for; null for a type no event stands for (none today). */
export function eventTypeOf(entry: { type: string; rejected: boolean }): WebhookEventType | null {
  if (entry.rejected) return 'access.refused';
  return (FROM_AUDIT as Record<string, WebhookEventType | undefined>)[entry.type] ?? null;
}

/** What each event means, for the OpenAPI document's `webhooks` section. */
export const EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  'door.unlocked': 'the lock unlocked (DOOR_UNLOCK)',
  'door.locked': 'the lock locked (DOOR_LOCK)',
  'door.opened': 'the door opened (DOOR_OPEN)',
  'door.closed': 'the door closed (DOOR_CLOSE)',
  'access.refused': 'an attempt was refused or got no reply in time (any entry with rejected = true; its type says what was attempted)',
  'access.shared': 'a member was given access (LOCK_SHARED)',
  'access.revoked': "a member's access was revoked (LOCK_REVOKED)",
  'member.promoted': 'a member became an administrator (USER_PROMOTED)',
  'member.demoted': 'an administrator became a user (USER_DEMOTED)',
  'lock.online': 'the lock connected (DEVICE_CONNECTED)',
  'lock.offline': 'the lock disconnected (DEVICE_DISCONNECTED)',
  'lock.claimed': 'the lock was claimed by its owner (OWNER_ASSIGNED)',
  'lock.settings_changed': "the lock's settings changed (SETTING_CHANGED)",
  'lock.decommissioned': 'the lock was decommissioned (DEVICE_DECOMMISSIONED)',
  'tile.linked': 'a tile was linked to the lock (TILE_ASSOCIATED)',
  'tile.unlinked': 'a tile was unlinked from the lock (TILE_DISASSOCIATED)',
  'alarm.raised': 'an alarm was raised: jammed, tampered, battery low or critical (ALARM_RAISED)',
  'alarm.cleared': 'an alarm was cleared (ALARM_CLEARED)',
  'code.added': 'a keypad code was granted on the lock (CODE_ADDED)',
  'code.changed': 'a keypad code was changed (CODE_CHANGED)',
  'code.removed': 'a keypad code was removed (CODE_REMOVED)',
};
