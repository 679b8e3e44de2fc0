import type { Generated } from 'kysely';
import type { Flag } from '../accounts/tables.js';

/**
 * A webhook endpoint (migration 0110): a URL that receives signed events, owned either by a user
 * (`owner_user_id`: events of the locks they administer) or by an application (`application_id`:
 * events of the locks its users administer; its owners manage it). Exactly one of the two is set.
 */
export interface WebhookEndpointsTable {
  id: string;
  owner_user_id: string | null;
  application_id: string | null;
  url: string;
  description: string | null;
  /** JSON array of event types (src/webhooks/event-types.ts); null = every type. */
  event_types: string | null;
  /** JSON arrays of lock and site ids; both null = every lock in scope. */
  lock_ids: string | null;
  site_ids: string | null;
  enabled: Flag;
  /** Why it was disabled automatically (a failing streak); null when enabled or disabled by its owner. */
  disabled_reason: string | null;
  /** The `whsec_` secret, sealed with the key-encryption key (src/crypto/secret-box.ts). */
  secret_sealed: string;
  /** The secret before the last rotation, still signing (beside the new one) until `previous_secret_until`. */
  previous_secret_sealed: string | null;
  previous_secret_until: number | null;
  /** Failed attempts in a row, and since when (Unix seconds); reset by any success. */
  failure_streak: Generated<number>;
  failing_since: number | null;
  created: number;
  updated: number;
}

/**
 * Audit entries committed and not yet fanned out to the endpoints (migration 0110): one row per
 * entry, written in the entry's own transaction (src/webhooks/outbox.ts), removed by the worker
 * in the transaction that writes the entry's deliveries.
 */
export interface WebhookOutboxTable {
  audit_seq: number;
  created: number;
}

/** One event to one endpoint (migration 0110): pending until delivered or given up. */
export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  /** A WebhookEventType. */
  event_type: string;
  /** The audit entry it comes from; null for a test event. */
  audit_seq: number | null;
  /** The entry's lock: deliveries of one lock to one endpoint go out in `audit_seq` order. */
  lock_id: string | null;
  /** The body of an event that comes from no audit entry (a test event); null otherwise (built from the entry on each attempt). */
  payload: string | null;
  /** 'pending', 'delivered' or 'failed'. */
  state: string;
  attempts: Generated<number>;
  next_attempt_at: number;
  /** Retries stop one retry window after this (the first attempt, or the last redelivery asked for). */
  window_start: number;
  delivered_at: number | null;
  created: number;
}

/** One attempt of a delivery (migration 0110): the delivery log. */
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  endpoint_id: string;
  at: number;
  /** The receiver's HTTP status; null when none came (refused address, timeout, connection error). */
  status: number | null;
  latency_ms: number;
  /** The start of the receiver's answer (a few hundred characters), or what went wrong. */
  response_excerpt: string | null;
  error: string | null;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_outbox: WebhookOutboxTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
