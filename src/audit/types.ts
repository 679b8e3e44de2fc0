/**
 * The audit event types of the spec's Events section, in its order, then the four the official
 * SDK's AuditEvent adds (issue 28): a setting changed, a tile linked or unlinked, a lock
 * decommissioned.
 */
export const AUDIT_TYPES = [
  'DOOR_OPEN',
  'DOOR_CLOSE',
  'DOOR_UNLOCK',
  'DOOR_LOCK',
  'OWNER_ASSIGNED',
  'DEVICE_CONNECTED',
  'DEVICE_DISCONNECTED',
  'LOCK_SHARED',
  'LOCK_REVOKED',
  'USER_PROMOTED',
  'USER_DEMOTED',
  'SETTING_CHANGED',
  'TILE_ASSOCIATED',
  'TILE_DISASSOCIATED',
  'DEVICE_DECOMMISSIONED',
] as const;

/**
 * Latchkey's own types, beside the spec's (docs/audit-log.md): alarms a lock's reports raise and
 * clear (src/alarms). Neither the v1 log nor the v2 log (which the official SDK decodes against
 * the spec's types) shows them; the live stream and GET /device/{id}/alarms do.
 */
export const ALARM_AUDIT_TYPES = ['ALARM_RAISED', 'ALARM_CLEARED'] as const;

/**
 * Keypad codes granted, changed and removed (src/keypad-codes), Latchkey's own like the alarms:
 * only the live stream and the codes API show them; their details name the code, never its digits.
 */
export const CODE_AUDIT_TYPES = ['CODE_ADDED', 'CODE_CHANGED', 'CODE_REMOVED'] as const;

/**
 * Lockdowns (src/operations/lockdown.ts, issue 31 point 3): declared, one administrator's lift
 * signed, lifted; and what the lock itself then says it enforces (src/lock-link/reports.ts). Shown
 * as the alarms' are.
 */
export const LOCKDOWN_AUDIT_TYPES = ['LOCKDOWN_DECLARED', 'LOCKDOWN_LIFT_SIGNED', 'LOCKDOWN_LIFTED', 'LOCKDOWN_REPORTED'] as const;

export type SpecAuditType = (typeof AUDIT_TYPES)[number];
export type AuditType = SpecAuditType | (typeof ALARM_AUDIT_TYPES)[number] | (typeof CODE_AUDIT_TYPES)[number] | (typeof LOCKDOWN_AUDIT_TYPES)[number];

/** The types the v1 lock log shows; v2 and the user log show all of them. */
export const V1_TYPES: readonly SpecAuditType[] = ['DOOR_OPEN', 'DOOR_CLOSE', 'DOOR_UNLOCK', 'DOOR_LOCK', 'OWNER_ASSIGNED', 'DEVICE_CONNECTED', 'DEVICE_DISCONNECTED'];

/** Types about a member other than the actor: the user log shows their `subject`. */
export const SUBJECT_TYPES: readonly AuditType[] = ['LOCK_SHARED', 'LOCK_REVOKED', 'USER_PROMOTED', 'USER_DEMOTED'];

export function isAuditType(value: string): value is AuditType {
  return [AUDIT_TYPES, ALARM_AUDIT_TYPES, CODE_AUDIT_TYPES, LOCKDOWN_AUDIT_TYPES].some((types) => (types as readonly string[]).includes(value));
}

export function hasSubject(type: string): boolean {
  return (SUBJECT_TYPES as readonly string[]).includes(type);
}

/** Messages are written by the service, never by callers; this only bounds a runaway reason. */
export const MAX_MESSAGE_LENGTH = 1024;

/** What happened, for entries recorded without a message. */
const DESCRIPTIONS: Record<AuditType, string> = {
  DOOR_OPEN: 'door opened',
  DOOR_CLOSE: 'door closed',
  DOOR_UNLOCK: 'lock unlocked',
  DOOR_LOCK: 'lock locked',
  OWNER_ASSIGNED: 'owner assigned',
  DEVICE_CONNECTED: 'lock connected',
  DEVICE_DISCONNECTED: 'lock disconnected',
  LOCK_SHARED: 'access shared',
  LOCK_REVOKED: 'access revoked',
  USER_PROMOTED: 'user promoted to administrator',
  USER_DEMOTED: 'administrator demoted to user',
  SETTING_CHANGED: 'settings changed',
  TILE_ASSOCIATED: 'tile linked',
  TILE_DISASSOCIATED: 'tile unlinked',
  DEVICE_DECOMMISSIONED: 'lock decommissioned',
  ALARM_RAISED: 'alarm raised',
  ALARM_CLEARED: 'alarm cleared',
  CODE_ADDED: 'keypad code added',
  CODE_CHANGED: 'keypad code changed',
  CODE_REMOVED: 'keypad code removed',
  LOCKDOWN_DECLARED: 'lockdown declared',
  LOCKDOWN_LIFT_SIGNED: 'lockdown lift signed',
  LOCKDOWN_LIFTED: 'lockdown lifted',
  LOCKDOWN_REPORTED: 'lockdown as the lock reports it',
};

/** What was attempted, for refusals. */
const ATTEMPTS: Record<AuditType, string> = {
  DOOR_OPEN: 'door open',
  DOOR_CLOSE: 'door close',
  DOOR_UNLOCK: 'unlock',
  DOOR_LOCK: 'lock',
  OWNER_ASSIGNED: 'claim',
  DEVICE_CONNECTED: 'connection',
  DEVICE_DISCONNECTED: 'disconnection',
  LOCK_SHARED: 'share',
  LOCK_REVOKED: 'revocation',
  USER_PROMOTED: 'promotion',
  USER_DEMOTED: 'demotion',
  SETTING_CHANGED: 'settings change',
  TILE_ASSOCIATED: 'tile link',
  TILE_DISASSOCIATED: 'tile unlink',
  DEVICE_DECOMMISSIONED: 'decommissioning',
  ALARM_RAISED: 'alarm',
  ALARM_CLEARED: 'alarm clearing',
  CODE_ADDED: 'keypad code grant',
  CODE_CHANGED: 'keypad code change',
  CODE_REMOVED: 'keypad code removal',
  LOCKDOWN_DECLARED: 'lockdown',
  LOCKDOWN_LIFT_SIGNED: 'lockdown lift',
  LOCKDOWN_LIFTED: 'lockdown lift',
  LOCKDOWN_REPORTED: 'lockdown report',
};

/**
 * The stored message of an entry. For a refusal, `given` is the reason, and the message always
 * says "refused" (clients show `message`, and a refused DOOR_UNLOCK must never read as an unlock).
 */
export function auditMessage(type: AuditType, rejected: boolean, given?: string, noReply = false): string {
  const detail = given?.trim() ? given.trim() : undefined;
  let message: string;
  // Not "refused": the lock may still carry it out (then audited as the user's, src/locks/command-life.ts).
  if (rejected && noReply) message = `${ATTEMPTS[type]}: no reply in time`;
  else if (!rejected) message = detail ?? DESCRIPTIONS[type];
  else message = detail ? `${ATTEMPTS[type]} refused: ${detail}` : `${ATTEMPTS[type]} refused`;
  return message.length > MAX_MESSAGE_LENGTH ? message.slice(0, MAX_MESSAGE_LENGTH) : message;
}
