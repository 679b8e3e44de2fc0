import type { Generated } from 'kysely';
import type { Flag } from '../accounts/tables.js';
import type { MemberRole } from '../access/types.js';

export interface LocksTable {
  id: string;
  /** The name the operator provisioned the lock with; the fallback for `default_name`. */
  name: string;
  site_id: string | null;
  /** SHA-256 hex of the one-time registration key (POST /device). */
  registration_key_hash: string;
  /** SHA-256 hex of the device secret (MQTT password); 256-bit random, so no stretching is needed. */
  secret_hash: string;
  /** The user who claimed the lock, while they remain a member; null when unowned. */
  owner_user_id: string | null;
  /** Set when the registration key is used; cleared when the last member leaves (the key then claims the lock again). */
  claimed_at: number | null;
  // Settings.
  /** Seconds the lock stays unlocked after an unlock (unlockTime / unlockDuration). */
  unlock_time: Generated<number>;
  /** JSON array of IPv4/IPv6 addresses or CIDR ranges; `[]` = unrestricted. */
  permitted_addresses: Generated<string>;
  /** Default alias for members without their own; null = `name`. */
  default_name: string | null;
  /** JSON object (spec "Usage requirements"); `{}` = unrestricted. */
  usage_requirements: Generated<string>;
  /** JSON object (spec "Unlock-between window") or null. */
  unlock_between: string | null;
  /** Deprecated settings, kept only so old clients can read back what they wrote. */
  tx_beacon_rssi: Generated<number>;
  rx_beacon_rssi: Generated<number>;
  proximity_unlock: Generated<Flag>;
  delay: Generated<number>;
  // Live state, as the lock last reported it.
  locked: Flag | null;
  door_open: Flag | null;
  connected: Generated<Flag>;
  last_operation: number | null;
  /** Increases with every change of the lock's config (users, unlock duration, unlock-between). */
  config_version: Generated<number>;
  /** A MUTATE_LOCK in flight (migration 0005): who sent it, the state it asks for, until when. */
  pending_actor_user_id: string | null;
  pending_target_locked: Flag | null;
  pending_until: number | null;
  /** The pending command's id, and 1 once its request answered 504 (migration 0012). */
  pending_command_id: string | null;
  pending_late: Flag | null;
  /** What the lock says it is (device protocol 1.2, migration 0020): its kind, its capabilities (comma-separated). */
  device_kind: string | null;
  device_capabilities: string | null;
  /** The digits its keypad takes (device protocol 1.5 `codeDigits`, migration 0150); null until it says. */
  code_digits_min: number | null;
  code_digits_max: number | null;
  /** Its last reported battery (per cent), jam and tamper; null until it reports them. */
  battery: number | null;
  jammed: Flag | null;
  tamper: Flag | null;
  /** When `door_open` and `connected` last changed (migration 0070): what held-open and offline alarms count from. */
  door_changed_at: number | null;
  presence_changed_at: number | null;
  /** 1 while the lock's last disconnect (stored at a start with the embedded broker) is not yet audited (migration 0220); it happened at `presence_changed_at`. */
  disconnect_unaudited: Generated<Flag>;
  /** Whether the owner lets members see the lock's LAN addresses (migration 0090). */
  direct_access: Generated<Flag>;
  /** The LAN addresses the lock announces (device protocol 1.3), a JSON array; null before it says. */
  direct_access_endpoints: string | null;
  /** The lockdown the lock says it enforces (protocol 1.4, migration 0170): its id, '' for none, null before it says; when that changed. */
  reported_lockdown: string | null;
  reported_lockdown_at: number | null;
  /** The lock's own time of the newest state or door event recorded (migration 0180); null before one. */
  report_ts: number | null;
  created: number;
  updated: number;
  /** Set when its owner retired it (POST /device/{id}/decommission, migration 0081); null while in service. */
  decommissioned_at: number | null;
}

export interface LockMembersTable {
  lock_id: string;
  user_id: string;
  role: MemberRole;
  /** Unix seconds; null = immediately. */
  starts_at: number | null;
  /** Unix seconds; null = never expires. */
  ends_at: number | null;
  /** The member's own name for the lock. */
  alias: string | null;
  favourite: Generated<Flag>;
  /** The member's own "hide this lock" flag (settings.hidden; migration 0010). */
  hidden: Generated<Flag>;
  colour: string | null;
  /** JSON array of time requirements: the share's own weekly hours (migration 0040); null = none. */
  schedule: string | null;
  created: number;
  updated: number;
}

/** The Ed25519 key each user had certified last (POST /auth/certificate), Base64 DER SPKI (migration 0010). */
export interface CertifiedKeysTable {
  user_id: string;
  public_key: string;
  certified_at: number;
}

/** A visitor's one-time web link (migration 0082, src/sharing/visitors.ts). */
export interface VisitorInvitationsTable {
  user_id: string;
  /** SHA-256 hex of the link's secret. */
  token_hash: string;
  created: number;
  expires_at: number;
  used_at: number | null;
}

export interface LockTables {
  locks: LocksTable;
  visitor_invitations: VisitorInvitationsTable;
  lock_members: LockMembersTable;
  /** Shares of an invite taken over by a registration whose email is not yet verified (src/sharing/held-shares.ts). */
  held_invite_shares: LockMembersTable;
  certified_keys: CertifiedKeysTable;
  /** Operation reports already recorded (device protocol 1.3, src/operations/lock-reports.ts). */
  lock_operation_reports: LockOperationReportsTable;
}

export interface LockOperationReportsTable {
  lock_id: string;
  report_id: string;
  recorded_at: number;
}
